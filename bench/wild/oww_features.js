// openWakeWord's feature pipeline in onnxruntime-node, for the wake-word heads of the wild corpus
// (issue 31): speech samples [1, N] -> melspectrogram.onnx -> x / 10 + 2 -> windows of 76 frames
// (every 8th) -> embedding_model.onnx -> the last WINDOWS embeddings as the head's input
// [1, WINDOWS, 96]. Writes OUT.npy.
//   node oww_features.js MELSPECTROGRAM.onnx EMBEDDING.onnx SPEECH.npy WINDOWS OUT.npy  (NODE_PATH: onnxruntime-node)
const fs = require('fs');
const ort = require('onnxruntime-node');

function readNpy(file) {
  const b = fs.readFileSync(file);
  const headerLen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + headerLen);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  return new ort.Tensor('float32', new Float32Array(b.buffer.slice(b.byteOffset + 10 + headerLen, b.byteOffset + b.length)), shape);
}

function writeNpy(file, data, shape) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]));
}

(async () => {
  const [melModel, embeddingModel, speechFile, windowsText, out] = process.argv.slice(2);
  const windows = Number(windowsText);
  const mel = await ort.InferenceSession.create(melModel);
  const melOut = Object.values(await mel.run({[mel.inputNames[0]]: readNpy(speechFile)}))[0];
  const frames = melOut.dims[melOut.dims.length - 2], bins = melOut.dims[melOut.dims.length - 1];
  const scaled = Float32Array.from(melOut.data, v => v / 10 + 2);
  if (frames < 76 + 8 * (windows - 1)) throw new Error(`${frames} mel frames are too few for ${windows} windows`);
  const embedding = await ort.InferenceSession.create(embeddingModel);
  const features = new Float32Array(windows * 96);
  for (let w = 0; w < windows; ++w) {
    const start = frames - 76 - 8 * (windows - 1 - w);
    const input = new ort.Tensor('float32', scaled.slice(start * bins, (start + 76) * bins), [1, 76, bins, 1]);
    const e = Object.values(await embedding.run({[embedding.inputNames[0]]: input}))[0];
    features.set(e.data, w * 96);
  }
  writeNpy(out, features, [1, windows, 96]);
})().catch(e => { console.error(e.message); process.exit(1); });
