// A few words that tell one process of a name from another: what a band's label, the
// chart's tooltip and the information panel show beside the name ("cc1plus 10913
// json.cpp"), computed here only, from the recorded command line.
//   compilers and assemblers  the input source file (cc1plus's source argument, the
//                             file gcc/clang compile), not the -o output or -dumpbase
//   interpreters              the script, "-m module", or "-c" and the start of the code
//   java                      the -jar file, or the main class
//   anything else             the first argument that is not an option, else the first
// The full command line stays in the hover titles. Null when there is nothing to add.

const kMaxChars = 40;
const kSourceFile = /\.(c|cc|cp|cpp|cxx|c\+\+|C|m|mm|M|i|ii|s|S|sx|f|f90|f95|f03|for|F|F90|go|rs|cu|d|ads|adb|swift|java|kt|ll|bc)$/;
const kCompilers = /^(cc1|cc1plus|cc1obj|cc1objplus|f951|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|clang-cl|as|gfortran|nvcc|rustc|javac|kotlinc|swiftc|ccache|distcc|icc|icpx|icx)(-[\d.]+)?$/;
const kInterpreters = /^(python|python[\d.]+|pypy[\d.]*|node|nodejs|deno|ruby|perl|php|bash|sh|dash|zsh|ksh|lua[\d.]*|Rscript|tclsh)$/;
// Options of compilers and drivers that take the next argument as their value.
const kCompilerValueOptions = new Set([
  '-o', '-MF', '-MT', '-MQ', '-MD', '-MMD', '-dumpbase', '-dumpbase-ext', '-dumpdir', '-auxbase', '-auxbase-strip',
  '-include', '-imacros', '-isystem', '-idirafter', '-iprefix', '-iwithprefix', '-iquote', '-isysroot', '-imultiarch',
  '-imultilib', '-I', '-D', '-U', '-L', '-l', '-x', '-Xlinker', '-Xassembler', '-Xpreprocessor', '-Xclang', '-target',
  '-arch', '-main-file-name', '-resource-dir', '-fdebug-compilation-dir', '-ferror-limit', '-MJ', '--serialize-diagnostics',
]);
const kJavaValueOptions = new Set(['-cp', '-classpath', '--class-path', '-p', '--module-path', '--add-modules', '--add-opens', '--add-exports']);

function base(path) {
  const i = path.lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}

// A path as its last two parts ("src/json.cpp"), at most kMaxChars.
export function shortPath(path) {
  const parts = path.split('/').filter(Boolean);
  const tail = parts.slice(-2).join('/');
  return clip(parts.length > 2 ? tail : path);
}

function clip(text) {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > kMaxChars ? `${oneLine.slice(0, kMaxChars - 1)}…` : oneLine;
}

// The input file of a compiler command line: the last argument that names a source file
// and is no option's value; else the last argument that is neither.
function compilerInput(args) {
  let lastSource = null;
  let lastPlain = null;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (kCompilerValueOptions.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-') || arg === '') continue;
    if (kSourceFile.test(arg)) lastSource = arg;
    else lastPlain = arg;
  }
  const input = lastSource || lastPlain;
  return input ? shortPath(input) : null;
}

function interpreterTarget(args) {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-m' && i + 1 < args.length) return clip(`-m ${args[i + 1]}`);
    if ((arg === '-c' || arg === '-e' || arg === '--eval') && i + 1 < args.length) return clip(`${arg} ${args[i + 1]}`);
    if (arg === '--') return i + 1 < args.length ? shortPath(args[i + 1]) : null;
    if (arg.startsWith('-')) continue;
    return shortPath(arg);
  }
  return null;
}

function javaTarget(args) {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-jar' && i + 1 < args.length) return shortPath(args[i + 1]);
    if (kJavaValueOptions.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return clip(arg);
  }
  return null;
}

function firstArgument(args) {
  const plain = args.slice(1).find((arg) => arg !== '' && !arg.startsWith('-'));
  const chosen = plain ?? args[1];
  if (chosen == null || chosen === '') return null;
  return chosen.includes('/') ? shortPath(chosen) : clip(chosen);
}

// cmdline: the recorded argv (may be empty: a process gone before it was read); name:
// the process's command name, used when argv[0] is a path or a wrapper's.
export function shortCommand(cmdline, name = '') {
  const args = cmdline || [];
  if (args.length < 2) return null;
  const program = base(args[0]);
  if (kCompilers.test(program) || kCompilers.test(name)) return compilerInput(args);
  if (/^java$/.test(program)) return javaTarget(args);
  if (kInterpreters.test(program) || kInterpreters.test(name)) return interpreterTarget(args);
  return firstArgument(args);
}

// A process's label: name, pid and the short command when there is one.
export function processLabel(process) {
  const head = `${process.name} ${process.pid}`;
  return process.short ? `${head} ${process.short}` : head;
}
