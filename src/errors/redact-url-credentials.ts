/** A URL's user and password ("https://admin:secret@host") as they may appear in an error message. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/**
 * `text` with the credentials of every URL in it replaced by "[redacted]": a kubeconfig may name
 * its server as https://user:password@host, and the HTTP client quotes that URL in its errors.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1[redacted]@');
}
