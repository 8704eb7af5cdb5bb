import { assert } from 'chai';

/** An expectRejection matcher: the gRPC error carries status `expected` (the message shown when not). */
export function grpcCode(expected: number): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.strictEqual(
      (error as { code?: number }).code,
      expected,
      String((error as Error).message),
    );
    return true;
  };
}
