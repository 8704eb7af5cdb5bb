export { listenPlainHttp, metricsRequestHandler, type PlainRoute } from './serve-metrics.js';
