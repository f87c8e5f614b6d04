// A small QR code encoder (ISO/IEC 18004): byte mode, error correction level M, versions
// 1 to 10 (up to 213 bytes: any page address), drawn as SVG. The operator's page shows the
// page's address with it, so that players open the page by pointing their phone's camera.

// Per version 1..10 at level M: error correction codewords per block, number of blocks.
const ECC_PER_BLOCK = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
const BLOCKS = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
const LEVEL_M = 0; // the format information's two bits for M
const MAX_VERSION = 10;

function gfMultiply(x, y) {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

function rsDivisor(degree) {
  const result = new Array(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gfMultiply(result[j], root);
      if (j + 1 < degree) result[j] ^= result[j + 1];
    }
    root = gfMultiply(root, 2);
  }
  return result;
}

function rsRemainder(data, divisor) {
  const result = new Array(divisor.length).fill(0);
  for (const b of data) {
    const factor = b ^ result.shift();
    result.push(0);
    divisor.forEach((coefficient, i) => { result[i] ^= gfMultiply(coefficient, factor); });
  }
  return result;
}

function rawCodewords(version) {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    modules -= (25 * align - 10) * align - 55;
    if (version >= 7) modules -= 36;
  }
  return Math.floor(modules / 8);
}

const dataCodewords = (v) => rawCodewords(v) - ECC_PER_BLOCK[v] * BLOCKS[v];

// The data codewords: mode, count, the bytes, terminator and padding.
function dataBits(bytes, version) {
  const bits = [];
  const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(4, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  bytes.forEach((b) => put(b, 8));
  const capacity = dataCodewords(version) * 8;
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const out = [];
  for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  return out;
}

// Split into blocks, add each block's error correction, interleave.
function codewords(data, version) {
  const blocks = BLOCKS[version];
  const ecc = ECC_PER_BLOCK[version];
  const raw = rawCodewords(version);
  const short = blocks - (raw % blocks);
  const shortData = Math.floor(raw / blocks) - ecc;
  const divisor = rsDivisor(ecc);
  const split = [];
  for (let i = 0, at = 0; i < blocks; i++) {
    const length = shortData + (i < short ? 0 : 1);
    const block = data.slice(at, at + length);
    at += length;
    split.push([block, rsRemainder(block, divisor)]);
  }
  const out = [];
  for (let i = 0; i <= shortData; i++) for (const [block] of split) if (i < block.length) out.push(block[i]);
  for (let i = 0; i < ecc; i++) for (const [, check] of split) out.push(check[i]);
  return out;
}

function alignmentPositions(version, size) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const out = [6];
  for (let pos = size - 7; out.length < count; pos -= step) out.splice(1, 0, pos);
  return out;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0, (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0, (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0, (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

class Symbol {
  constructor(version) {
    this.version = version;
    this.size = version * 4 + 17;
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.fixed = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.drawPatterns();
  }

  set(x, y, dark) {
    this.dark[y][x] = dark;
    this.fixed[y][x] = true;
  }

  drawPatterns() {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const d = Math.max(Math.abs(dx), Math.abs(dy));
          const [x, y] = [cx + dx, cy + dy];
          if (x >= 0 && x < n && y >= 0 && y < n) this.set(x, y, d !== 2 && d !== 4);
        }
      }
    }
    const at = alignmentPositions(this.version, n);
    at.forEach((cx, i) => at.forEach((cy, j) => {
      const corner = (i === 0 && j === 0) || (i === 0 && j === at.length - 1) || (i === at.length - 1 && j === 0);
      if (corner) return;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }));
    this.drawFormat(0); // reserves the format areas; drawn again once the mask is known
    if (this.version >= 7) this.drawVersion();
  }

  drawFormat(mask) {
    const data = (LEVEL_M << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i) => ((bits >>> i) & 1) === 1;
    const n = this.size;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set(n - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, n - 15 + i, bit(i));
    this.set(8, n - 8, true);
  }

  drawVersion() {
    let rem = this.version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (this.version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const [a, b] = [this.size - 11 + (i % 3), Math.floor(i / 3)];
      this.set(a, b, dark);
      this.set(b, a, dark);
    }
  }

  drawData(words) {
    const n = this.size;
    let i = 0;
    for (let right = n - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vert = 0; vert < n; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const y = ((right + 1) & 2) === 0 ? n - 1 - vert : vert;
          if (!this.fixed[y][x] && i < words.length * 8) {
            this.dark[y][x] = ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
            i++;
          }
        }
      }
    }
  }

  masked(mask) {
    const rule = MASKS[mask];
    const out = this.dark.map((row, y) => row.map((d, x) => (this.fixed[y][x] ? d : d !== rule(x, y))));
    return out;
  }
}

// A mask's penalty: runs of five or more, 2×2 blocks, finder-like runs, dark/light balance.
function penalty(m) {
  const n = m.length;
  let score = 0;
  const lines = [...m, ...m[0].map((_, x) => m.map((row) => row[x]))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= n; i++) {
      if (i < n && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += run - 2;
        run = 1;
      }
    }
    const text = line.map((d) => (d ? 1 : 0)).join("");
    score += 40 * ((text.match(/(?=10111010000|00001011101)/g) ?? []).length);
  }
  for (let y = 0; y + 1 < n; y++) {
    for (let x = 0; x + 1 < n; x++) {
      const c = m[y][x];
      if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
    }
  }
  const dark = m.flat().filter(Boolean).length;
  score += Math.floor(Math.abs(dark * 20 - n * n * 10) / (n * n)) * 10;
  return score;
}

// The symbol's modules (rows of booleans, true: dark), for ``mask`` 0-7 or the best one.
export function qrMatrix(text, mask = null) {
  const bytes = [...new TextEncoder().encode(text)];
  let version = 1;
  while (version <= MAX_VERSION && 4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCodewords(version) * 8) version++;
  if (version > MAX_VERSION) throw new Error(`too long for a QR code of version ${MAX_VERSION}: ${bytes.length} bytes`);
  const symbol = new Symbol(version);
  symbol.drawData(codewords(dataBits(bytes, version), version));
  const choose = (m) => {
    symbol.drawFormat(m);
    return symbol.masked(m);
  };
  if (mask !== null) return choose(mask);
  let best = null;
  for (let m = 0; m < 8; m++) {
    const matrix = choose(m);
    const score = penalty(matrix);
    if (best === null || score < best.score) best = { score, mask: m };
  }
  return choose(best.mask);
}

// The symbol as SVG, with the four-module quiet zone around it.
export function qrSvg(text) {
  const m = qrMatrix(text);
  const n = m.length + 8;
  const path = m.flatMap((row, y) => row.map((d, x) => (d ? `M${x + 4} ${y + 4}h1v1h-1z` : ""))).join("");
  return `<svg class="qr" viewBox="0 0 ${n} ${n}" role="img" aria-label="QR code of the page's address">` +
    `<rect width="${n}" height="${n}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
