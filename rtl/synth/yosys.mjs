// Runs Yosys (the YoWASP WebAssembly build from npm, @yowasp/yosys) on SystemVerilog files and
// writes the statistics Yosys printed as JSON. Debian's Yosys 0.23 cannot read the blocks' packed
// multi-dimensional arrays; YoWASP's build is current Yosys and needs only Node.js.
//
// usage: node yosys.mjs YOWASP_DIR TOP OUT FILE.sv...   (writes OUT.json, OUT.v: the gate netlist)
//   YOWASP_DIR: where `npm install --prefix YOWASP_DIR @yowasp/yosys` put the package.
// The synthesis: Yosys's generic `synth` up to its fine stage (memories stay memories, counted in
// bits: they would be SRAM macros), then the generic gate library; no ABC (the counts move by
// about 1% and the run takes minutes less on the large arrays).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [yowaspDir, top, out, ...sources] = process.argv.slice(2);
if (!yowaspDir || !top || !out || sources.length === 0) {
  console.error('usage: node yosys.mjs YOWASP_DIR TOP OUT FILE.sv...');
  process.exit(2);
}
const bundle = path.resolve(yowaspDir, 'node_modules/@yowasp/yosys/gen/bundle.js');
const { runYosys } = await import(pathToFileURL(bundle).href);

const files = {};
for (const s of sources) files[path.basename(s)] = fs.readFileSync(s);
const script = [
  `read_verilog -sv ${sources.map((s) => path.basename(s)).join(' ')}`,
  `synth -top ${top} -run begin:fine`,
  'techmap',
  'opt -fast',
  'tee -q -o stat.json stat -json -tech cmos',
  // One wire per bit: Verilator 5.006 evaluates a multi-bit wire whose bits feed each other (a
  // carry chain) wrongly, which made correct netlists fail their checks.
  'splitnets',
  'write_verilog -noattr netlist.v',
].join('; ');
let written;
try {
  // Every warning is an error but memories turned into registers: Yosys reads some constructs
  // wrongly with only a warning (a member of an unpacked array element became an undriven wire).
  written = await runYosys(['-q', '-e', '^(?!Replacing memory)', '-p', script], files, {
    stdout: (b) => b && process.stdout.write(b),
    stderr: (b) => b && process.stderr.write(b),
  });
} catch (e) {
  console.error(`error: Yosys failed on ${top}${e.code !== undefined ? ` (exit ${e.code})` : `: ${e}`}`);
  process.exit(1);
}
fs.writeFileSync(`${out}.json`, written['stat.json']);
fs.writeFileSync(`${out}.v`, written['netlist.v']);
