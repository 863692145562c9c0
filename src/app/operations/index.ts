/**
 * Operations: what a node reports about itself (health, metrics readings).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { metricsReadings, storeReachable } from './node-status.js';
