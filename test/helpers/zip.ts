import { crc32, deflateRawSync } from "node:zlib";
import yauzl from "yauzl";

/*
 * Zip files written byte by byte, for tests that need what zip libraries refuse to write:
 * `../` and absolute names, backslashes, symlink attributes, sizes that lie.
 */

export interface RawEntry {
  name: string;
  data: Buffer;
  /** Unix mode stored in the external attributes (default a regular file, 0o100644). */
  mode?: number;
  /** Deflate the data (method 8) instead of storing it. */
  deflate?: boolean;
  /** Writes this uncompressed size instead of the real one (a lying header). */
  declaredSize?: number;
  /** Data deflated once by `deflated()` and reused: many large entries (a bomb) without deflating each. */
  precompressed?: Deflated;
}

export interface Deflated {
  body: Buffer;
  size: number;
  crc: number;
}

/** Deflates `data` once, for entries that repeat it (`RawEntry.precompressed`). */
export function deflated(data: Buffer): Deflated {
  return { body: deflateRawSync(data), size: data.length, crc: crc32(data) };
}

const DOS_TIME = 0x6000; // 12:00:00
const DOS_DATE = 0x5c21; // 2026-01-01

export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const pre = entry.precompressed;
    const body = pre ? pre.body : entry.deflate ? deflateRawSync(entry.data) : entry.data;
    const size = entry.declaredSize ?? pre?.size ?? entry.data.length;
    const crc = pre ? pre.crc : crc32(entry.data);
    const method = entry.deflate || pre ? 8 : 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, spec 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Every file entry of a (trusted) zip, by name. */
export async function readZipEntries(file: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(file);
  const entries = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    entries.set(entry.fileName, Buffer.concat(chunks));
  }
  return entries;
}
