import type { Command } from 'commander';
import type { SettingView } from '../../app/deployment/index.js';
import { printJson, printText } from '../output.js';
import { storeFlags, withStore, type StoreFlags } from '../store-access.js';

/** The settings code, loaded by the commands that use it (the store is open by then), not by every `warrant` start. */
const deployment = () => import('../../app/deployment/index.js');

/**
 * `warrant settings get|set|unset` (docs/concepts.md, docs/api.md): the settings every node shares, straight
 * against the store (admin). Each is validated; secrets are masked; every change is logged.
 */
function settingJson(v: SettingView): Record<string, unknown> {
  return {
    key: v.key,
    value: v.value,
    is_set: v.isSet,
    default: v.defaultText,
    description: v.description,
    secret: v.secret,
    settable: v.settable,
    takes_effect: v.takesEffect,
  };
}

function settingLine(v: SettingView): string {
  return `${v.key}: ${v.isSet ? v.value : `(unset — ${v.defaultText})`}`;
}

export function registerSettingsCommands(program: Command): void {
  const settings = program
    .command('settings')
    .description('settings every node shares: admin user, Slack, allowed hosts, checkpoint key, housekeeping (admin: opens the store directly)');

  storeFlags(
    settings
      .command('get [key]')
      .description('show one setting, or all of them')
      .option('--reveal', 'print a secret value instead of masking it')
      .option('--json', 'print JSON'),
  ).action(async (key: string | undefined, opts: StoreFlags & { reveal?: boolean; json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const { getSettingView, listSettingViews } = await deployment();
      if (key) {
        const v = await getSettingView(ctx, admin, key, { reveal: opts.reveal ?? false });
        if (opts.json) return printJson({ setting: settingJson(v) });
        return printText(`${settingLine(v)}\n  ${v.description}`);
      }
      const all = await listSettingViews(ctx, admin);
      if (opts.json) return printJson({ settings: all.map(settingJson) });
      printText(all.map((v) => `${settingLine(v)}\n  ${v.description}`).join('\n'));
    });
  });

  storeFlags(
    settings
      .command('set <key> <value>')
      .description('validate and store a setting (checkpoint_key: "generate" makes a new Ed25519 key)')
      .option('--key-name <name>', 'with checkpoint_key generate: the name in signed notes (default warrant-audit)')
      .option('--json', 'print JSON'),
  ).action(async (key: string, value: string, opts: StoreFlags & { keyName?: string; json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const input = value === 'generate' && opts.keyName ? `generate:${opts.keyName}` : value;
      const { changeSetting } = await deployment();
      const v = await changeSetting(ctx, admin, key, input);
      if (opts.json) return printJson({ setting: settingJson(v) });
      const extra = key === 'checkpoint_key' ? '\nGive verifiers this public key: warrant audit verify --checkpoint FILE --public-key ' + v.value : '';
      printText(`${settingLine(v)} (takes effect ${v.takesEffect})${extra}`);
    });
  });

  storeFlags(settings.command('unset <key>').description('remove a setting (its default applies again)').option('--json', 'print JSON')).action(
    async (key: string, opts: StoreFlags & { json?: boolean }) => {
      await withStore(opts, async (ctx, admin) => {
        const { changeSetting } = await deployment();
        const v = await changeSetting(ctx, admin, key, null);
        if (opts.json) return printJson({ setting: settingJson(v) });
        printText(`${settingLine(v)} (takes effect ${v.takesEffect})`);
      });
    },
  );
}
