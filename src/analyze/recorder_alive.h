// analyze/: whether a recording without an end is still being written, or was left so
// by a recorder that was killed. The viewer follows the first and shows the second as
// interrupted; the summary and `canopy diff` say which.
#pragma once

#include "store/recording.h"

namespace canopy::analyze {

// Whether the canopy that writes `meta`'s recording is still running: the recording's
// `recorder_pid` on this host is a live process named canopy (this one included). False
// for a recording from elsewhere, from a canopy too old to say, or whose recorder was
// killed: its file never grows again.
bool recorder_running(const store::RecordingMeta& meta);

}  // namespace canopy::analyze
