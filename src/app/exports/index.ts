/**
 * Exports: the PROV document.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { provSource } from './prov-document.js';
export { nextOtelBatch, otelSource } from './otel-source.js';
export type { OtelSession } from './otel-source.js';
