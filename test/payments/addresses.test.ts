import { expect, it } from 'vitest';
import { keccak256, validAddress, toChecksumAddress } from '../../src/billing/payments/addresses.js';
it('checks Keccak-256, EIP-55, base58check, bech32/bech32m, Tron and Solana address vectors', () => {
  expect(keccak256(Buffer.alloc(0)).toString('hex')).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  expect(toChecksumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  expect(validAddress('evm', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
  expect(validAddress('evm', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false);
  expect(validAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(true);
  expect(validAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toBe(false);
  expect(validAddress('bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(true);
  expect(validAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
  expect(validAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
  expect(validAddress('bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe(true);
  expect(validAddress('tron', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7')).toBe(true);
  expect(validAddress('solana', '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T')).toBe(true);
});
