import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

export interface CertificatePair {
  /** PEM certificate (chain). */
  readonly cert: string;
  /** PEM private key. Secret: never log it. */
  readonly key: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly fingerprint256: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/** PKCS#8 `ENCRYPTED PRIVATE KEY`, or a traditional (PKCS#1, SEC1) key with OpenSSL's `Proc-Type: 4,ENCRYPTED` header. */
const ENCRYPTED_KEY = /-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type:\s*4,\s*ENCRYPTED/m;
/** What Node (OpenSSL 3) throws for an encrypted key read without a passphrase. */
const PASSPHRASE_ERRORS = new Set([
  'ERR_MISSING_PASSPHRASE',
  'ERR_OSSL_CRYPTO_INTERRUPTED_OR_CANCELLED',
]);

async function readPem(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    throw new Error(
      `${(error as Error).message} (voe runs as uid ${process.getuid?.() ?? '?'}: make the file readable by it, ` +
        "e.g. with the Secret volume's defaultMode or the pod's fsGroup)",
      { cause: error },
    );
  }
}

function privateKeyOf(key: string, keyFile: string): KeyObject {
  const encrypted =
    `the key file ${keyFile} holds an encrypted (passphrase-protected) private key; voe needs it unencrypted ` +
    '(cert-manager writes it so; decrypt it with: openssl pkey -in KEY -out KEY.plain)';
  if (ENCRYPTED_KEY.test(key)) throw new Error(encrypted);
  try {
    return createPrivateKey(key);
  } catch (error) {
    // OpenSSL's own words for this ("interrupted or cancelled") say nothing to an operator.
    if (PASSPHRASE_ERRORS.has(String((error as NodeJS.ErrnoException).code)))
      throw new Error(encrypted, { cause: error });
    throw error;
  }
}

/**
 * Reads the pair and proves the key belongs to the certificate. createSecureContext alone does not:
 * it skips an empty key, and OpenSSL checks a key only against a certificate of its own type (an
 * RSA key beside an ECDSA certificate loads, then every handshake fails). The certificate file may
 * hold a chain: the serving certificate first, then its intermediates (all are served). An error's
 * message says what is wrong in the operator's terms (an encrypted key, a chain in the wrong
 * order, a file voe may not read); it never contains key material.
 */
export async function loadCertificatePair(
  certFile: string,
  keyFile: string,
): Promise<CertificatePair> {
  const [cert, key] = await Promise.all([readPem(certFile), readPem(keyFile)]);
  if (cert.trim() === '') throw new Error(`the certificate file ${certFile} is empty`);
  if (key.trim() === '') throw new Error(`the key file ${keyFile} is empty`);
  const x509 = new X509Certificate(cert);
  const privateKey = privateKeyOf(key, keyFile);
  if (!x509.checkPrivateKey(privateKey)) {
    const chain = cert.match(PEM_CERTIFICATE) ?? [];
    const index = chain.findIndex(
      (pem, i) => i > 0 && new X509Certificate(pem).checkPrivateKey(privateKey),
    );
    if (index > 0) {
      throw new Error(
        `the key belongs to certificate ${index + 1} of the ${chain.length} in ${certFile}, not to the first: ` +
          'put the serving certificate first, then its intermediates',
      );
    }
    throw new Error('the key does not belong to the certificate');
  }
  createSecureContext({ cert, key });
  return {
    cert,
    key,
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    fingerprint256: x509.fingerprint256,
  };
}
