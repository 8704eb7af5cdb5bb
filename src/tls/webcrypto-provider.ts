import { webcrypto } from 'node:crypto';
import { PemConverter } from './x509.js';

/** Node's WebCrypto, passed explicitly to @peculiar/x509 (no global provider is mutated). */
export const nodeCrypto: webcrypto.Crypto = webcrypto;

/** ECDSA over P-256 with SHA-256: small keys, fast handshakes, accepted by Go's crypto/tls and OpenSSL. */
export const ECDSA_P256: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
export const ECDSA_SHA256: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

export async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return await nodeCrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify']);
}

export async function exportPrivateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = await nodeCrypto.subtle.exportKey('pkcs8', key);
  return PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

/** A random positive 128-bit serial number, hexadecimal (RFC 5280 allows up to 20 octets). */
export function randomSerialNumber(): string {
  const bytes = nodeCrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}
