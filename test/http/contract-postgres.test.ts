import { contractSuite } from '../helpers/contract/contract-suite.js';

/** The OpenAPI contract on PostgreSQL (test/helpers/contract/contract-suite.ts says what it proves). */
contractSuite('postgres');
