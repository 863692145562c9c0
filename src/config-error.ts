/** A configuration the server or the CLI cannot run with (exit code 2). Its own module: the CLI checks for it before loading the config schema. */
export class ConfigError extends Error {}
