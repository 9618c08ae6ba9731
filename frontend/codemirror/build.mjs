// Bundles CodeMirror 6 into one minified ES module for the page, and writes the licences
// of every package that went into it beside it. Run with `npm ci && npm run build` in this
// folder; the output is committed, so neither Node nor the network is needed at run time.
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, "..", "..", "interpreter", "web", "static", "vendor");

const result = await build({
  entryPoints: [join(here, "entry.mjs")],
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  outfile: join(vendor, "codemirror.js"),
  metafile: true,
  legalComments: "none",
  banner: { js: "/* CodeMirror 6 and its parts, bundled by frontend/codemirror/build.mjs; licences in LICENSES.txt */" },
});

// Every package whose files went into the bundle: its name, version and licence text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (match) packages.set(match[1], join(here, "node_modules", match[1]));
}
const sections = [];
for (const [name, folder] of [...packages].sort()) {
  const meta = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const file = readdirSync(folder).find((f) => /^(licen[cs]e|copying)/i.test(f));
  if (!file) throw new Error(`${name} has no licence file`);
  const text = readFileSync(join(folder, file), "utf8").trim();
  sections.push(`${name} ${meta.version} (${meta.license})\n${"-".repeat(60)}\n${text}\n`);
}
writeFileSync(
  join(vendor, "LICENSES.txt"),
  "Third-party code in codemirror.js, with the licence of each package.\n\n" +
    sections.join("\n"),
);
console.log(`codemirror.js: ${packages.size} packages`);
