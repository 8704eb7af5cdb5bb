export { shellQuote } from './shell-quote.js';
