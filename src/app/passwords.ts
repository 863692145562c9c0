import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { WarrantError } from '../core/errors.js';

/** docs/concepts.md: web passwords are stored with scrypt. Parameters travel with each hash. */
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;
const MAX_MEM = 128 * 1024 * 1024;

const MIN_PASSWORD_LENGTH = 10;
const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: MAX_MEM };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export function checkPasswordStrength(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new WarrantError('invalid-request', `password: at least ${MIN_PASSWORD_LENGTH} characters (got ${length}).`, { details: { field: 'password' } });
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new WarrantError('invalid-request', `password: at most ${MAX_PASSWORD_LENGTH} characters.`, { details: { field: 'password' } });
  }
}

/** `scrypt$N$r$p$salt$hash` (base64url), so stronger parameters can be adopted later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison; an unknown user is checked against a dummy so timing tells nothing. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, Buffer.alloc(16), PARAMS);
    return false;
  }
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
