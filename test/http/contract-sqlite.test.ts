import { contractSuite } from '../helpers/contract/contract-suite.js';

/** The OpenAPI contract on SQLite (test/helpers/contract/contract-suite.ts says what it proves). */
contractSuite('sqlite');
