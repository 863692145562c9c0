/**
 * Human messages: the record, the terminal witness and the warrant gate.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { humanMessageEntry } from './record.js';
export type { HumanMessageEntry, HumanRecord } from './record.js';
export { closeTerminal, mintWitness, recordRunPrompt, reportTurn, witnessAlive, witnessPrompt } from './terminal-witness.js';
export { checkWarrant } from './warrant-gate.js';
export { humanRecordOf } from './record.js';
