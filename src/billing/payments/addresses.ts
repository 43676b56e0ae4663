/**
 * Format checks of crypto refund addresses per network: EVM (0x + 40 hex, EIP-55 checksum when mixed case),
 * Bitcoin (base58check P2PKH/P2SH, or bech32/bech32m segwit with hrp `bc`), Tron (base58check, version 0x41),
 * Solana (base58 of 32 bytes). Keccak-256 (EIP-55) is implemented here: Node's hashes offer only SHA-3.
 */
import { createHash } from 'node:crypto';

export type AddressFormat = 'evm' | 'bitcoin' | 'tron' | 'solana';

const MASK = (1n << 64n) - 1n;
const ROUND_CONSTANTS = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];
const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const rotl = (value: bigint, shift: number): bigint =>
  shift === 0 ? value : ((value << BigInt(shift)) | (value >> BigInt(64 - shift))) & MASK;

function keccakF(state: bigint[]): void {
  for (const constant of ROUND_CONSTANTS) {
    const c = [0, 1, 2, 3, 4].map((x) => state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!);
    for (let x = 0; x < 5; x += 1) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) state[x + y] = state[x + y]! ^ d;
    }
    const b = new Array<bigint>(25).fill(0n);
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(state[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
    }
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) state[x + 5 * y] = b[x + 5 * y]! ^ (~b[((x + 1) % 5) + 5 * y]! & MASK & b[((x + 2) % 5) + 5 * y]!);
    }
    state[0] = state[0]! ^ constant;
  }
}

/** Keccak-256 (the original padding, as Ethereum uses it). */
export function keccak256(data: Uint8Array): Buffer {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((data.length + 1) / rate) * rate);
  padded.set(data);
  padded[data.length] = padded[data.length]! ^ 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! ^ 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let lane = 0; lane < rate / 8; lane += 1) {
      let value = 0n;
      for (let byte = 7; byte >= 0; byte -= 1) value = (value << 8n) | BigInt(padded[offset + lane * 8 + byte]!);
      state[lane] = state[lane]! ^ value;
    }
    keccakF(state);
  }
  const out = Buffer.alloc(32);
  for (let lane = 0; lane < 4; lane += 1) {
    let value = state[lane]!;
    for (let byte = 0; byte < 8; byte += 1) {
      out[lane * 8 + byte] = Number(value & 0xffn);
      value >>= 8n;
    }
  }
  return out;
}

/** The EIP-55 mixed-case form of an EVM address. */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak256(Buffer.from(lower, 'ascii')).toString('hex');
  return `0x${[...lower].map((char, index) => (parseInt(hash[index]!, 16) >= 8 ? char.toUpperCase() : char)).join('')}`;
}

function validEvm(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const body = address.slice(2);
  // All lower or all upper case carries no checksum; mixed case must match EIP-55.
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58Decode(text: string): Buffer | null {
  if (text.length === 0) return null;
  let value = 0n;
  for (const char of text) {
    const digit = BASE58.indexOf(char);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Buffer.from(bytes);
}

const sha256d = (data: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();

/** Payload of a base58check string when its checksum holds. */
export function base58CheckDecode(text: string): Buffer | null {
  const raw = base58Decode(text);
  if (!raw || raw.length < 5) return null;
  const payload = raw.subarray(0, raw.length - 4);
  return sha256d(payload)
    .subarray(0, 4)
    .equals(raw.subarray(raw.length - 4))
    ? payload
    : null;
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymod(values: number[]): number {
  const generators = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i += 1) if ((top >>> i) & 1) checksum ^= generators[i]!;
  }
  return checksum >>> 0;
}

/** A segwit address (`bc1…`): bech32 for version 0, bech32m for later versions, program length checked. */
export function validSegwit(address: string, hrp: string): boolean {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
  const lower = address.toLowerCase();
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || lower.slice(0, separator) !== hrp || lower.length > 90 || lower.length - separator - 1 < 6) return false;
  const data: number[] = [];
  for (const char of lower.slice(separator + 1)) {
    const value = BECH32.indexOf(char);
    if (value < 0) return false;
    data.push(value);
  }
  const expanded = [...[...hrp].map((char) => char.charCodeAt(0) >> 5), 0, ...[...hrp].map((char) => char.charCodeAt(0) & 31)];
  const constant = polymod([...expanded, ...data]);
  const version = data[0]!;
  if (version > 16 || constant !== (version === 0 ? BECH32_CONST : BECH32M_CONST)) return false;
  // 5-bit groups → bytes of the witness program.
  let accumulator = 0;
  let bits = 0;
  const program: number[] = [];
  for (const value of data.slice(1, -6)) {
    accumulator = (accumulator << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      program.push((accumulator >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((accumulator << (8 - bits)) & 0xff) !== 0) return false;
  if (program.length < 2 || program.length > 40) return false;
  return version !== 0 || program.length === 20 || program.length === 32;
}

export function validAddress(format: AddressFormat, address: string): boolean {
  switch (format) {
    case 'evm':
      return validEvm(address);
    case 'bitcoin': {
      if (/^(bc1|BC1)/.test(address)) return validSegwit(address, 'bc');
      const payload = base58CheckDecode(address);
      return payload !== null && payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x05);
    }
    case 'tron': {
      const payload = base58CheckDecode(address);
      return payload !== null && payload.length === 21 && payload[0] === 0x41;
    }
    case 'solana': {
      const raw = base58Decode(address);
      return raw !== null && raw.length === 32 && address.length >= 32 && address.length <= 44;
    }
    default:
      return false;
  }
}
