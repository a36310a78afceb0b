import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processLabel, shortCommand, shortPath } from '../../src/short_command.js';

test('cc1plus: the source file, not -dumpbase or the -o output', () => {
  const argv = ['/usr/libexec/gcc/x86_64-linux-gnu/12/cc1plus', '-quiet', '-I', '/src/include', '-D', 'NDEBUG',
    '-MD', 'CMakeFiles/x.dir/src/json.cpp.d', '/home/u/nlohmann/src/json.cpp', '-quiet', '-dumpbase', 'json.cpp',
    '-dumpbase-ext', '.cpp', '-mtune=generic', '-march=x86-64', '-O2', '-o', '/tmp/ccAbc.s'];
  assert.equal(shortCommand(argv, 'cc1plus'), 'src/json.cpp');
});

test('cc1plus as the gcc driver really runs it (-MD FILE, -D X, -imultiarch X, -dumpdir)', () => {
  const argv = ['/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus', '-quiet', '-I', '/w/tests', '-imultiarch', 'x86_64-linux-gnu',
    '-MD', 'CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.d', '-MF', 'CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.o.d', '-MT',
    'tests/CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.o', '-D_GNU_SOURCE', '-D', 'CANOPY_VERSION="0.1.0"',
    '/w/build/tests/CMakeFiles/t.dir/Unity/unity_1_cxx.cxx', '-quiet', '-dumpdir', 'CMakeFiles/t.dir/Unity/', '-dumpbase',
    'unity_1_cxx.cxx.cxx', '-dumpbase-ext', '.cxx', '-mtune=generic', '-O2', '-o', '/tmp/ccs9uQAz.s'];
  assert.equal(shortCommand(argv, 'cc1plus'), 'Unity/unity_1_cxx.cxx');
});

test('gcc and clang drivers: the input, with -c and -o around it', () => {
  assert.equal(shortCommand(['/usr/bin/c++', '-O2', '-o', 'x.o', '-c', '/p/lib/a.cc'], 'c++'), 'lib/a.cc');
  assert.equal(shortCommand(['gcc-12', '-c', 'main.c', '-o', 'main.o'], 'gcc-12'), 'main.c');
  assert.equal(shortCommand(['clang++-15', '-std=c++20', '-Xclang', '-ast-dump', 'x.cpp'], 'clang++-15'), 'x.cpp');
  assert.equal(shortCommand(['as', '--64', '-o', 'a.o', '/tmp/ccX.s'], 'as'), '/tmp/ccX.s');
  // Linking: no source, the last plain argument.
  assert.equal(shortCommand(['g++', '-o', 'app', 'a.o', 'b.o'], 'g++'), 'b.o');
});

test('interpreters: the script, -m module or -c code', () => {
  assert.equal(shortCommand(['/usr/bin/python3', '-u', 'tools/gen.py', '--out', 'x'], 'python3'), 'tools/gen.py');
  assert.equal(shortCommand(['python3.11', '-m', 'pytest', '-x'], 'python3.11'), '-m pytest');
  assert.equal(shortCommand(['sh', '-c', 'make -C build   all'], 'sh'), '-c make -C build all');
  assert.equal(shortCommand(['node', '/a/b/c/server.js'], 'node'), 'c/server.js');
});

test('java: the -jar file, or the main class after the class path', () => {
  assert.equal(shortCommand(['/usr/lib/jvm/bin/java', '-Xmx2g', '-jar', '/opt/app/lib/app.jar', 'serve'], 'java'), 'lib/app.jar');
  assert.equal(shortCommand(['java', '-cp', 'a.jar:b.jar', 'org.example.Main', 'x'], 'java'), 'org.example.Main');
});

test('anything else: the first argument that is no option; nothing for a bare name', () => {
  assert.equal(shortCommand(['canopy_workload', 'hold', '60', '2000'], 'canopy_workload'), 'hold');
  assert.equal(shortCommand(['make', '-j8'], 'make'), '-j8');
  assert.equal(shortCommand(['make'], 'make'), null);
  assert.equal(shortCommand([], 'cc1plus'), null);
  assert.equal(shortCommand(null, 'x'), null);
});

test('long words are clipped, labels carry it', () => {
  assert.equal(shortPath(`/x/${'a'.repeat(60)}.cpp`).length, 40);
  assert.equal(processLabel({ name: 'cc1plus', pid: 10913, short: 'src/json.cpp' }), 'cc1plus 10913 src/json.cpp');
  assert.equal(processLabel({ name: 'make', pid: 7, short: null }), 'make 7');
});
