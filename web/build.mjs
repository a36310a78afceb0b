// Builds the viewer: node web/build.mjs OUTDIR
//   OUTDIR/app.js     src/main.js and uPlot, one minified IIFE (es2020)
//   OUTDIR/app.css    src/style.css, src/profiles.css and uPlot's CSS, minified
//   OUTDIR/index.html src/index.html as is
// `canopy report --html` inlines app.js and app.css into index.html, so a `</script`
// in the script or a `</style` in the stylesheet would end the element early: the build
// refuses both. Every failure is one line on stderr and exit status 1.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = path.dirname(fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`web/build.mjs: ${message}\n`);
  process.exit(1);
}

async function main() {
  const outDir = process.argv[2];
  if (!outDir || process.argv.length > 3) fail('usage: node web/build.mjs OUTDIR');
  if (!fs.existsSync(path.join(webDir, 'node_modules', 'esbuild'))) {
    fail(`${path.join(webDir, 'node_modules')} is missing: run make deps (or npm ci in web/)`);
  }
  const { build } = await import('esbuild');
  fs.mkdirSync(outDir, { recursive: true });
  const common = { bundle: true, minify: true, write: false, logLevel: 'silent', legalComments: 'none' };
  const script = await build({
    ...common,
    entryPoints: [path.join(webDir, 'src', 'main.js')],
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
  });
  const style = await build({
    ...common,
    stdin: {
      contents: '@import "uplot/dist/uPlot.min.css";\n@import "./src/style.css";\n@import "./src/profiles.css";\n',
      resolveDir: webDir,
      loader: 'css',
    },
    loader: { '.css': 'css' },
    target: 'chrome100',
  });
  const js = script.outputFiles[0].text;
  const css = style.outputFiles[0].text;
  if (/<\/script/i.test(js)) fail('app.js contains "</script", which would break the inlined report');
  if (/<!--/.test(js)) fail('app.js contains "<!--", which changes how an inline script is parsed');
  if (/<\/style/i.test(css)) fail('app.css contains "</style", which would break the inlined report');
  const html = fs.readFileSync(path.join(webDir, 'src', 'index.html'), 'utf8');
  for (const tag of ['<link rel="stylesheet" href="app.css">', '<script src="app.js"></script>']) {
    if (html.split(tag).length !== 2) fail(`src/index.html must contain ${tag} exactly once`);
  }
  fs.writeFileSync(path.join(outDir, 'app.js'), js);
  fs.writeFileSync(path.join(outDir, 'app.css'), css);
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
}

main().catch((error) => fail(String(error && error.message ? error.message : error).split('\n')[0]));
