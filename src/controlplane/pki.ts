import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type x509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];

x509.cryptoProvider.set(webcrypto as unknown as x509Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface KeyPairPem { certPem: string; keyPem: string }
export interface Authority extends KeyPairPem { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair }

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Escapes a value for an RFC 4514 distinguished name string. */
function dnValue(value: string): string {
  return value.replace(/[\\,+"<>;=#]/g, (c) => `\\${c}`);
}

const DAY = 86_400_000;

export async function createAuthority(commonName: string, days = 3650): Promise<Authority> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${dnValue(commonName)}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + days * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  }, webcrypto as unknown as x509Crypto);
  return { cert, keys, certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys.privateKey) };
}

async function issue(ca: Authority, name: string, extensions: x509.Extension[], days: number): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: name,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + days * DAY),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false, webcrypto as unknown as x509Crypto),
      ...extensions,
    ],
  }, webcrypto as unknown as x509Crypto);
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys.privateKey) };
}

/** A serving certificate for IP addresses and DNS names. */
export async function issueServing(ca: Authority, hosts: string[], days = 365): Promise<KeyPairPem> {
  const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');
  return issue(ca, `CN=${dnValue(hosts[0] ?? 'localhost')}`, [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: isIp(h) ? 'ip' : 'dns', value: h }))),
  ], days);
}

/** A client certificate: Kubernetes reads CN as the user name and each O as a group. */
export async function issueClient(ca: Authority, user: string, groups: string[] = [], days = 365): Promise<KeyPairPem> {
  const subject = [...groups.map((g) => `O=${dnValue(g)}`), `CN=${dnValue(user)}`].join(', ');
  return issue(ca, subject, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])], days);
}
