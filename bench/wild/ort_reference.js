// The independent float oracle (issue 31): runs a model in onnxruntime-node on one .npy input and
// writes every output as OUT_DIR/NAME.npy (float32, C order).
//   node ort_reference.js MODEL.onnx INPUT_NAME INPUT.npy OUT_DIR     (NODE_PATH: where onnxruntime-node is)
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function readNpy(file) {
  const b = fs.readFileSync(file);
  const headerLen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + headerLen);
  if (!header.includes("'<f4'") || header.includes("'fortran_order': True"))
    throw new Error(file + ': expected a C-order float32 array');
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + headerLen, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, shape);
}

function writeNpy(file, tensor) {
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(Float32Array.from(tensor.data).buffer);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

(async () => {
  const [model, inputName, input, outDir] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model);
  const outputs = await session.run({[inputName]: readNpy(input)});
  fs.mkdirSync(outDir, {recursive: true});
  for (const [name, t] of Object.entries(outputs)) writeNpy(path.join(outDir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), t);
})().catch(e => { console.error(e.message); process.exit(1); });
