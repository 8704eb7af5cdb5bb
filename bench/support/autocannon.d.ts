// Minimal typings for the parts of autocannon the benchmarks use (the package ships none).
declare module 'autocannon' {
  interface Histogram { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p90: number; p97_5: number; p99: number; p99_9?: number; total?: number }
  interface Result {
    requests: Histogram; latency: Histogram; throughput: Histogram;
    duration: number; errors: number; timeouts: number; non2xx: number; mismatches: number;
    '2xx': number; connections: number;
  }
  interface RequestSpec { method?: string; path?: string; body?: string | Buffer; headers?: Record<string, string> }
  interface Options {
    url: string; connections?: number; duration?: number; amount?: number; method?: string; body?: string | Buffer;
    headers?: Record<string, string>; requests?: RequestSpec[]; overallRate?: number; pipelining?: number;
    tlsOptions?: Record<string, unknown>; timeout?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
