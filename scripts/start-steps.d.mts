export const BUILD_INPUTS: string[];
export const BUILD_STAMP: string;
export function staleBecause(root: string): string | null;
export function writeStamp(root: string): void;
export function onPath(name: string, pathValue: string | undefined): string | null;
export function npmGlobalBin(env: NodeJS.ProcessEnv): string | null;
export function linkCommand(root: string, env: NodeJS.ProcessEnv): string;
