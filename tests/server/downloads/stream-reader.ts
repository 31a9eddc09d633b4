import zlib from 'node:zlib';

export interface StreamedEntry {
  name: string;
  method: 'stored' | 'deflated';
  descriptor: boolean;
  bytes: Buffer;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const DESCRIPTOR = 0x08074b50;

function crc32(bytes: Buffer): number {
  return zlib.crc32 ? zlib.crc32(bytes) >>> 0 : fallbackCrc(bytes);
}

function fallbackCrc(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Reads a ZIP front to back from its local headers alone, ignoring the central directory, the way
 * java.util.zip.ZipInputStream (and Android's) does, and refuses what it refuses: a STORED entry
 * with a data descriptor ("only DEFLATED entries can have EXT descriptor"). Checks every CRC.
 */
export function readZipAsStream(zip: Buffer): StreamedEntry[] {
  const entries: StreamedEntry[] = [];
  let at = 0;
  while (at + 4 <= zip.length) {
    const sig = zip.readUInt32LE(at);
    if (sig === CENTRAL) return entries;
    if (sig !== LOCAL) throw new Error(`unexpected signature 0x${sig.toString(16)} at ${at}`);
    const flags = zip.readUInt16LE(at + 6);
    const methodCode = zip.readUInt16LE(at + 8);
    let crc = zip.readUInt32LE(at + 14);
    let compressed = zip.readUInt32LE(at + 18);
    const nameLen = zip.readUInt16LE(at + 26);
    const extraLen = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const descriptor = (flags & 0x08) !== 0;
    const dataAt = at + 30 + nameLen + extraLen;
    if (methodCode !== 0 && methodCode !== 8) throw new Error(`${name}: compression method ${methodCode} is not supported`);
    if (methodCode === 0 && descriptor) throw new Error(`${name}: only DEFLATED entries can have EXT descriptor`);
    let bytes: Buffer;
    let next: number;
    if (methodCode === 0) {
      if (compressed === 0xffffffff) throw new Error(`${name}: a stored entry needs its size in the local header`);
      bytes = zip.subarray(dataAt, dataAt + compressed);
      next = dataAt + compressed;
    } else {
      // A deflate stream ends itself: how many bytes it took is what the inflater consumed.
      const { buffer, engine } = zlib.inflateRawSync(zip.subarray(dataAt), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      bytes = buffer;
      compressed = engine.bytesWritten;
      next = dataAt + compressed;
    }
    if (descriptor) {
      if (zip.readUInt32LE(next) === DESCRIPTOR) next += 4;
      crc = zip.readUInt32LE(next);
      // ZIP64 descriptors have 8-byte sizes; a plain one 4-byte. The next signature tells which.
      const plainEnd = next + 12;
      next = [LOCAL, CENTRAL].includes(zip.readUInt32LE(plainEnd)) ? plainEnd : next + 20;
    }
    if (crc32(bytes) !== crc) throw new Error(`${name}: CRC mismatch`);
    entries.push({ name, method: methodCode === 0 ? 'stored' : 'deflated', descriptor, bytes });
    at = next;
  }
  throw new Error('no central directory: the ZIP is cut short');
}
