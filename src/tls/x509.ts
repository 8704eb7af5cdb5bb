// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect
// metadata API at load time. Every file in src/tls imports @peculiar/x509 through this module so
// the polyfill is always evaluated first.
import 'reflect-metadata';

export * from '@peculiar/x509';
