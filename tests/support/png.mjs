// A small PNG reader for tests that look at screenshots: 8-bit greyscale, RGB or RGBA,
// non-interlaced (what headless Chromium writes). Returns the pixels after undoing the
// per-row filters, so colours can be counted.
import { inflateSync } from 'node:zlib';

const SIGNATURE = '89504e470d0a1a0a';
const CHANNELS = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** {width, height, channels, pixels: Uint8Array} of a PNG file's bytes. */
export function decodePng(bytes) {
  if (bytes.subarray(0, 8).toString('hex') !== SIGNATURE) throw new Error('not a PNG');
  let offset = 8;
  let header;
  const idat = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8], colorType: data[9], interlace: data[12] };
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const channels = CHANNELS[header?.colorType];
  if (!header || header.depth !== 8 || !channels || header.interlace !== 0) {
    throw new Error(`unsupported PNG: ${JSON.stringify(header)}`);
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = header.width * channels;
  const pixels = new Uint8Array(stride * header.height);
  for (let y = 0; y < header.height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad PNG filter ${filter} on row ${y}`);
      out[i] = (line[i] + predictor) & 0xff;
    }
  }
  return { width: header.width, height: header.height, channels, pixels };
}

/** How many distinct colours, and what share of pixels differ from the top-left one. */
export function pixelVariety({ width, height, channels, pixels }) {
  const colours = new Set();
  const background = pixels.subarray(0, channels).join(',');
  let differing = 0;
  for (let i = 0; i < width * height * channels; i += channels) {
    const colour = pixels.subarray(i, i + Math.min(channels, 3)).join(',');
    colours.add(colour);
    if (pixels.subarray(i, i + channels).join(',') !== background) differing += 1;
  }
  return { colours: colours.size, differingShare: differing / (width * height) };
}
