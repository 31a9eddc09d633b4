import zlib from 'node:zlib';

/** One file of a ZIP, inflated and checked against its CRC. */
export interface ZipFile {
  name: string;
  bytes: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * A tiny ZIP reader for tests (no unzip library is installed): reads the central directory, which
 * holds the real sizes even when the writer streamed entries with data descriptors, then each
 * entry's data, and fails on anything it does not understand rather than guessing.
 */
export function readZip(zip: Buffer): ZipFile[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65535); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a ZIP: no end-of-central-directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files: ZipFile[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error(`bad central directory entry ${n}`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;

    if (zip.readUInt32LE(localOffset) !== LOCAL) throw new Error(`bad local header of ${name}`);
    const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(start, start + compressedSize);
    if (name.endsWith('/')) continue;
    let bytes: Buffer;
    if (method === 0) bytes = Buffer.from(raw);
    else if (method === 8) bytes = zlib.inflateRawSync(raw);
    else throw new Error(`${name}: compression method ${method} is not supported`);
    if (bytes.length !== size) throw new Error(`${name}: ${bytes.length} bytes, the directory says ${size}`);
    if (zlib.crc32(bytes) !== crc) throw new Error(`${name}: CRC mismatch`);
    files.push({ name, bytes });
  }
  return files;
}
