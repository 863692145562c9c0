/** What a migration may ask of the node running it (data that must leave the store). */
export interface MigrationHooks {
  /**
   * Migration 011: takes the server secret (hex) the store held, puts it outside the store
   * (or checks it against the node's own) and returns the check value to keep instead.
   */
  relocateServerSecret?(legacyHex: string): Promise<string>;
}
