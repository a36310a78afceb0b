# bash completion for canopy(1)                              -*- shell-script -*-
#
# Completes the commands, each command's options, the values of the options that take
# one from a list, recordings (*.canopy) where a recording is expected, and the command
# `canopy record` runs (handed to that command's own completion). Installed as
# bash-completion/completions/canopy, which bash-completion loads on the first TAB after
# `canopy`; it uses bash-completion's helpers (_init_completion, _filedir,
# _command_offset, _pids). tests/docs/check_completion.py fails when the lists below and
# canopy's --help differ.
#
# shellcheck disable=SC2207 # COMPREPLY=($(compgen ...)): the words have no spaces

# Sets, for the command in $1 ("record", "log add", ...): `options`, every option it
# takes; `valued`, those that take a value; `positionals`, what its arguments are, in
# order: recording, file, json (an Onlooker JSON file), command (the rest is the
# command canopy record runs) or text (the rest is words).
_canopy_command_spec()
{
    local help='-h --help'
    case $1 in
        record)
            valued='--pid --duration -i --interval -o --output --pss-interval
                --memory-limit --swap-limit --cpu-limit --cpus --nice --cpu-time
                --max-processes --timeout --kill-grace --max-peak --max-cpu --heap-interval
                --metrics --metrics-top'
            options="$help $valued -f --force -q --quiet --pss --capture-output
                --no-process-events --no-cgroup --heap --cpu-profile --live --serve"
            positionals='command'
            ;;
        report)
            valued='--html --max-peak --max-cpu'
            options="$help $valued --json --growth -f --force"
            positionals='recording'
            ;;
        view)
            valued='--listen --port'
            options="$help $valued --open"
            positionals='recording'
            ;;
        export)
            valued='--format -o --output --metric --kind --pid --command --at --profile --from --to'
            options="$help $valued -f --force --long"
            positionals='recording'
            ;;
        import)
            valued='-o --output --cpus'
            options="$help $valued -f --force"
            positionals='json'
            ;;
        diff)
            valued='--top'
            options="$help $valued --json --all"
            positionals='recording recording'
            ;;
        heap)
            valued='--pid --command --from --to --older-than --top --frames --processes'
            options="$help $valued --json"
            positionals='recording'
            ;;
        profile)
            valued='--pid --command --from --to --top --processes'
            options="$help $valued --per-process --json"
            positionals='recording'
            ;;
        'log add')
            valued='--format --tz --time-field --message-field'
            options="$help $valued --again"
            positionals='recording file'
            ;;
        log | mark)
            valued=''
            options=$help
            positionals='text'
            ;;
        *)
            return 1
            ;;
    esac
    valued=" ${valued//$'\n'/ } "  # one line, for matching " $word "
}

# Completes the value of option $2 of command $1 (the word at the cursor: the caller's $cur).
_canopy_option_value()
{
    case "$1 $2" in
        'record --pid')
            _pids
            ;;
        'record -o' | 'record --output' | 'import -o' | 'import --output')
            _filedir canopy
            ;;
        'export -o' | 'export --output')
            _filedir
            ;;
        'report --html')
            _filedir html
            ;;
        'export --format')
            COMPREPLY=($(compgen -W 'onlooker csv chrome jsonl cutelooker-log pprof collapsed' -- "$cur"))
            ;;
        'export --metric')
            # The figures of the format the line names: a stack's for collapsed, else a
            # cell's of the wide CSV. Bash splits --format=collapsed into three words.
            local line=" ${COMP_WORDS[*]} "
            if [[ $line == *' --format collapsed '* || $line == *' --format = collapsed '* ||
                $line == *' --format=collapsed '* ]]; then
                COMPREPLY=($(compgen -W 'inuse_space inuse_objects alloc_space alloc_objects' -- "$cur"))
            else
                COMPREPLY=($(compgen -W 'rss_bytes cpu_percent rss_anon_bytes rss_file_bytes
                    rss_shmem_bytes swap_bytes vm_size_bytes cpu_user_ns cpu_system_ns threads
                    minor_faults major_faults read_bytes write_bytes disk_read_bytes
                    disk_write_bytes pss_bytes uss_bytes' -- "$cur"))
            fi
            ;;
        'export --at')
            COMPREPLY=($(compgen -W 'end peak' -- "$cur"))
            ;;
        'export --profile')
            COMPREPLY=($(compgen -W 'heap cpu' -- "$cur"))
            ;;
        'export --kind')
            COMPREPLY=($(compgen -W 'log stdout stderr mark exec signal limit' -- "$cur"))
            ;;
        'log add --format')
            COMPREPLY=($(compgen -W 'cutelooker cmake-trace lines jsonl' -- "$cur"))
            ;;
        *) ;; # a number, a size, a duration, an address, a name: nothing to offer
    esac
}

_canopy()
{
    # shellcheck disable=SC2034 # words and cword: _init_completion sets them all
    local cur prev words cword split
    _init_completion -s || return

    # The command: the first word after canopy's own options (--help, --version take no
    # value), and the word after it for `log`. COMP_WORDS, not words: _command_offset
    # counts in it, and it keeps `--opt=value` as three words.
    local i=1
    while ((i < COMP_CWORD)) && [[ ${COMP_WORDS[i]} == -* ]]; do
        ((i++))
    done
    if ((i == COMP_CWORD)); then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-h --help --version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'record report view export import diff heap profile log mark' -- "$cur"))
        fi
        return
    fi
    local command=${COMP_WORDS[i]}
    if [[ $command == log ]] && ((i + 1 < COMP_CWORD)) && [[ ${COMP_WORDS[i + 1]} != -* ]]; then
        ((i++))
        command="log ${COMP_WORDS[i]}"
    elif [[ $command == log && $cur != -* ]]; then
        COMPREPLY=($(compgen -W 'add' -- "$cur"))
        return
    fi
    local options valued positionals
    _canopy_command_spec "$command" || return

    # The words before the cursor that are arguments, not options or their values.
    local -a before=()
    local word after_dashes=false
    for ((i++; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if $after_dashes || [[ $word != -* ]]; then
            [[ $word == = || ${COMP_WORDS[i - 1]} == = ]] && continue
            before+=("$i")
        elif [[ $word == -- ]]; then
            after_dashes=true
        elif [[ $valued == *" $word "* ]]; then
            ((i++))
        fi
        # canopy record: the command starts here, and the rest is its own.
        if [[ $positionals == command ]] && ((${#before[@]} > 0)); then
            _command_offset "${before[0]}"
            return
        fi
        if [[ $positionals == command ]] && $after_dashes; then
            _command_offset $((i + 1))
            return
        fi
    done

    if ! $after_dashes; then
        if [[ $valued == *" $prev "* ]]; then
            _canopy_option_value "$command" "$prev"
            return
        fi
        $split && return
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$options" -- "$cur"))
            return
        fi
    fi

    # The argument at the cursor; the last kind repeats when it takes the rest.
    local -a kinds
    read -ra kinds <<< "$positionals"
    local kind=${kinds[${#before[@]}]-}
    if [[ -z $kind && ${kinds[-1]} == @(command|text) ]]; then
        kind=${kinds[-1]}
    fi
    case $kind in
        recording) _filedir canopy ;;
        json) _filedir json ;;
        file) _filedir ;;
        command) _command_offset "$COMP_CWORD" ;;
    esac
} &&
    complete -F _canopy canopy

# ex: filetype=sh
