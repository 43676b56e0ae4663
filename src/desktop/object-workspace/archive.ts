/**
 * Reads a repository archive (zip, or tar.gz as GitHub-style codeload serves them) into a list of regular files
 * and folders, refusing anything that could escape its folder or exhaust the machine:
 * - entry names are relative paths only (no `..` segment, no leading `/`, no drive letter, no backslash, no NUL);
 * - symlinks, hardlinks, devices and FIFOs are refused (not skipped), as are encrypted and ZIP64 zips;
 * - the entry count, the unpacked size and the compression ratio (whole archive, and per zip entry above 1 MiB)
 *   are capped; zip entries are inflated with a streaming inflater that stops the moment an entry outgrows its
 *   declared size, and each entry's CRC-32 is checked; tar.gz is gunzipped with a hard output cap.
 * Zip reading parses the central directory here (fflate's `unzipSync` does not expose the entry's file type)
 * and inflates with fflate's `Inflate`; tar is a strict ustar reader (pax `path`/`size` and GNU long names).
 * A single folder wrapping every entry (`repo-<commit>/`) is stripped.
 */
import zlib from 'node:zlib';
import { Inflate } from 'fflate';
import { crc32 } from '../../kernel/crc32.js';

export interface ArchiveLimits {
  maxEntries: number;
  maxUnpackedBytes: number;
  maxRatio: number;
}

export interface ArchiveEntry {
  path: string;
  directory: boolean;
  data: Uint8Array;
}

export interface ParsedArchive {
  format: 'zip' | 'tar.gz';
  entries: ArchiveEntry[];
  files: number;
  bytes: number;
  /** The commit id a GitHub-style tarball carries in its pax global header, if any. */
  embeddedCommit: string | null;
}

export class ArchiveError extends Error {
  constructor(
    readonly kind: 'invalid' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new ArchiveError('invalid', message);
const tooLarge = (message: string) => new ArchiveError('too_large', message);

/** A safe relative path (`a/b/c`) from an archive entry name, or an `invalid` error. */
export function safeEntryPath(name: string): string {
  if (name.includes('\0')) throw invalid('an entry name contains NUL');
  if (name.includes('\\')) throw invalid(`entry "${name.slice(0, 200)}" uses a backslash`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw invalid(`entry "${name.slice(0, 200)}" is an absolute path`);
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.some((segment) => segment === '..')) throw invalid(`entry "${name.slice(0, 200)}" escapes its folder`);
  if (segments.some((segment) => Buffer.byteLength(segment) > 255) || name.length > 4096) throw invalid('an entry name is too long');
  return segments.join('/');
}

function checkTotals(count: number, bytes: number, archiveBytes: number, limits: ArchiveLimits): void {
  if (count > limits.maxEntries) throw tooLarge(`the archive has more than ${limits.maxEntries} entries`);
  if (bytes > limits.maxUnpackedBytes) throw tooLarge(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
  if (bytes > 1024 * 1024 && bytes / Math.max(1, archiveBytes) > limits.maxRatio)
    throw tooLarge(`the archive's compression ratio exceeds ${limits.maxRatio}`);
}

// ---- zip ----

function inflateCapped(compressed: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > size) throw tooLarge('a zip entry inflates beyond its declared size');
    out.set(chunk, written);
    written += chunk.length;
  });
  const step = 16 * 1024;
  try {
    for (let offset = 0; offset < compressed.length; offset += step) {
      inflater.push(compressed.subarray(offset, offset + step), offset + step >= compressed.length);
    }
    if (compressed.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw invalid('a zip entry is corrupt');
  }
  if (written !== size) throw invalid('a zip entry is shorter than its declared size');
  return out;
}

function readZip(data: Buffer, limits: ArchiveLimits): ArchiveEntry[] {
  let eocd = -1;
  for (let offset = data.length - 22; offset >= Math.max(0, data.length - 22 - 65_535); offset--) {
    if (data.readUInt32LE(offset) === 0x06054b50) {
      eocd = offset;
      break;
    }
  }
  if (eocd < 0) throw invalid('not a zip archive (no end of central directory)');
  const count = data.readUInt16LE(eocd + 10);
  const directorySize = data.readUInt32LE(eocd + 12);
  let offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff || directorySize === 0xffffffff) throw invalid('ZIP64 archives are not accepted');
  if (count > limits.maxEntries) throw tooLarge(`the archive has more than ${limits.maxEntries} entries`);
  const entries: ArchiveEntry[] = [];
  let total = 0;
  for (let index = 0; index < count; index++) {
    if (offset + 46 > data.length || data.readUInt32LE(offset) !== 0x02014b50) throw invalid('the zip central directory is corrupt');
    const madeBy = data.readUInt16LE(offset + 4) >> 8;
    const flags = data.readUInt16LE(offset + 8);
    const method = data.readUInt16LE(offset + 10);
    const crc = data.readUInt32LE(offset + 16);
    const compressedSize = data.readUInt32LE(offset + 20);
    const size = data.readUInt32LE(offset + 24);
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    const external = data.readUInt32LE(offset + 38);
    const localOffset = data.readUInt32LE(offset + 42);
    const rawName = data.subarray(offset + 46, offset + 46 + nameLength);
    const name = flags & 0x800 ? rawName.toString('utf8') : rawName.toString('latin1');
    offset += 46 + nameLength + extraLength + commentLength;

    if (flags & 0x1) throw invalid('encrypted zip entries are not accepted');
    const mode = madeBy === 3 ? external >>> 16 : 0;
    const type = mode & 0o170000;
    if (type === 0o120000) throw invalid(`entry "${name.slice(0, 200)}" is a symbolic link`);
    const directory = name.endsWith('/') || type === 0o040000 || (madeBy === 0 && (external & 0x10) !== 0);
    if (type !== 0 && type !== 0o100000 && type !== 0o040000)
      throw invalid(`entry "${name.slice(0, 200)}" is not a regular file or folder`);
    const path = safeEntryPath(name);
    total += size;
    checkTotals(index + 1, total, data.length, limits);
    if (size > 1024 * 1024 && size / Math.max(1, compressedSize) > limits.maxRatio)
      throw tooLarge(`entry "${name.slice(0, 200)}" exceeds the compression-ratio cap of ${limits.maxRatio}`);
    if (directory) {
      entries.push({ path, directory: true, data: new Uint8Array(0) });
      continue;
    }
    if (localOffset + 30 > data.length || data.readUInt32LE(localOffset) !== 0x04034b50) throw invalid('a zip local header is corrupt');
    const start = localOffset + 30 + data.readUInt16LE(localOffset + 26) + data.readUInt16LE(localOffset + 28);
    if (start + compressedSize > data.length) throw invalid('a zip entry runs past the archive');
    const compressed = data.subarray(start, start + compressedSize);
    let content: Uint8Array;
    if (method === 0) {
      if (compressedSize !== size) throw invalid('a stored zip entry has inconsistent sizes');
      content = new Uint8Array(compressed);
    } else if (method === 8) content = inflateCapped(compressed, size);
    else throw invalid(`zip compression method ${method} is not supported`);
    if (crc32(content) !== crc) throw invalid(`entry "${name.slice(0, 200)}" fails its CRC check`);
    entries.push({ path, directory: false, data: content });
  }
  return entries;
}

// ---- tar.gz ----

function field(block: Buffer, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end < 0 ? length : end).toString('utf8');
}

function octal(block: Buffer, start: number, length: number, what: string): number {
  if (block[start]! & 0x80) throw invalid(`tar ${what} uses base-256 encoding`);
  const text = field(block, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw invalid(`tar ${what} is not an octal number`);
  return parseInt(text, 8);
}

function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) throw invalid('a pax header is corrupt');
    const length = Number(data.subarray(offset, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0 || offset + length > data.length) throw invalid('a pax header is corrupt');
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals < 0) throw invalid('a pax header is corrupt');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    offset += length;
  }
  return records;
}

function readTar(tar: Buffer, compressedBytes: number, limits: ArchiveLimits): { entries: ArchiveEntry[]; commit: string | null } {
  const entries: ArchiveEntry[] = [];
  let offset = 0;
  let total = 0;
  let commit: string | null = null;
  let nextPax: Map<string, string> | null = null;
  let nextLongName: string | null = null;
  while (true) {
    if (offset + 512 > tar.length) throw invalid('the tar archive ends without its end marker');
    const block = tar.subarray(offset, offset + 512);
    if (block.every((byte) => byte === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
    if (octal(block, 148, 8, 'checksum') !== sum) throw invalid('a tar header fails its checksum');
    const magic = block.subarray(257, 263).toString('latin1');
    if (magic !== 'ustar\0' && magic !== 'ustar ') throw invalid('not a ustar archive');
    const type = String.fromCharCode(block[156]!);
    const size = octal(block, 124, 12, 'size');
    const dataStart = offset + 512;
    if (dataStart + size > tar.length) throw invalid('a tar entry runs past the archive');
    const content = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / 512) * 512;

    if (type === 'g') {
      const comment = paxRecords(content).get('comment');
      if (comment && /^[0-9a-f]{7,64}$/i.test(comment)) commit = comment;
      continue;
    }
    if (type === 'x') {
      nextPax = paxRecords(content);
      continue;
    }
    if (type === 'L') {
      nextLongName = field(content, 0, content.length);
      continue;
    }
    const prefix = magic === 'ustar\0' ? field(block, 345, 155) : '';
    const headerName = prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100);
    const name = nextPax?.get('path') ?? nextLongName ?? headerName;
    const paxSize = nextPax?.get('size');
    nextPax = null;
    nextLongName = null;
    if (paxSize !== undefined && Number(paxSize) !== size) throw invalid('pax sizes larger than the header field are not accepted');
    if (type === '1') throw invalid(`entry "${name.slice(0, 200)}" is a hard link`);
    if (type === '2') throw invalid(`entry "${name.slice(0, 200)}" is a symbolic link`);
    if (type !== '0' && type !== '\0' && type !== '7' && type !== '5')
      throw invalid(`entry "${name.slice(0, 200)}" is not a regular file or folder`);
    const path = safeEntryPath(name);
    const directory = type === '5';
    total += directory ? 0 : size;
    checkTotals(entries.length + 1, total, compressedBytes, limits);
    entries.push({ path, directory, data: directory ? new Uint8Array(0) : new Uint8Array(content) });
  }
  return { entries, commit };
}

function stripWrapper(entries: ArchiveEntry[]): ArchiveEntry[] {
  const firsts = new Set(entries.map((entry) => entry.path.split('/')[0]));
  const wrapper = firsts.size === 1 ? [...firsts][0]! : null;
  if (!wrapper || !entries.some((entry) => entry.path.startsWith(`${wrapper}/`))) return entries;
  if (entries.some((entry) => entry.path === wrapper && !entry.directory)) return entries;
  return entries.filter((entry) => entry.path !== wrapper).map((entry) => ({ ...entry, path: entry.path.slice(wrapper.length + 1) }));
}

/** Parses and checks an archive (format from its first bytes). */
export function readArchive(data: Buffer, limits: ArchiveLimits): ParsedArchive {
  let format: ParsedArchive['format'];
  let entries: ArchiveEntry[];
  let embeddedCommit: string | null = null;
  if (data.length >= 4 && data.readUInt32LE(0) === 0x04034b50) {
    format = 'zip';
    entries = readZip(data, limits);
  } else if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    format = 'tar.gz';
    let tar: Buffer;
    try {
      // Headers add at most one block per entry plus padding: the cap leaves room for those.
      tar = zlib.gunzipSync(data, { maxOutputLength: limits.maxUnpackedBytes + (limits.maxEntries + 2) * 1024 });
    } catch (error) {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw tooLarge(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
      throw invalid('the gzip stream is corrupt');
    }
    if (tar.length > 1024 * 1024 && tar.length / data.length > limits.maxRatio)
      throw tooLarge(`the archive's compression ratio exceeds ${limits.maxRatio}`);
    const read = readTar(tar, data.length, limits);
    entries = read.entries;
    embeddedCommit = read.commit;
  } else throw invalid('the download is neither a zip nor a tar.gz archive');
  entries = stripWrapper(entries);
  const files = entries.filter((entry) => !entry.directory);
  if (files.length === 0) throw invalid('the archive holds no files');
  return { format, entries, files: files.length, bytes: files.reduce((sum, entry) => sum + entry.data.length, 0), embeddedCommit };
}
