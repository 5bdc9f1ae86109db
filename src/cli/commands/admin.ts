import { type Command, Option } from 'commander'
import { lazyAction } from '../lazy.js'

// ./.folio is the one of the folder folio admin runs in: from elsewhere the server's is named
// (a Cloud server's banner prints the first command with it).
const dataOption = () => new Option('-d, --data <dir>', 'the server’s data folder (default: $FOLIO_DATA, else ./.folio here, where folio serve ran)')

/** folio admin: the operator's commands for a Cloud server's data dir, stopped or running. */
export function registerAdmin(program: Command): void {
  const admin = program
    .command('admin')
    .description('operate a Cloud server: workspaces, plans, members and usage (on its data folder)')
    .addHelpText(
      'after',
      `
Works on the data folder of a stopped server (it opens the store itself) or of a running one
(it asks the server, through the loopback-only API whose token the server keeps in
<data>/admin.json, readable by its owner only). Plans are in <data>/plans.json: edit it, or
folio admin plans <file>; a running server takes the change within seconds. With PostgreSQL
(serve --database), name a running instance's --data folder: the plans are the database's,
and every instance takes a change within seconds.

Examples:
  $ folio admin workspace create --name "Acme" --plan pro --owner ann@acme.test
  $ folio admin workspace list
  $ folio admin workspace list --data /srv/folio/.folio      a server started in /srv/folio
  $ folio admin workspace plan <workspace-id> team
  $ folio admin workspace members <workspace-id>
  $ folio admin plans                       the plans in force
  $ folio admin plans ./plans.json          replace them
  $ folio admin usage --json`,
    )
  const workspace = admin.command('workspace').description('create and list workspaces, change their plan, see their members')
  workspace
    .command('create')
    .description('a new workspace and its first API key (shown once: only its hash is kept)')
    .requiredOption('--name <name>', 'the workspace’s name')
    .option('--plan <plan>', 'one of the plans in plans.json (default: the first, free)')
    .option('--owner <email>', 'the Owner’s e-mail address (a member with the Owner role)')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.create }))))
  workspace
    .command('list')
    .description('every workspace: id, name, plan, members, whether a key works')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.list }))))
  workspace
    .command('plan')
    .description('move a workspace to another plan')
    .argument('<id>', 'the workspace')
    .argument('<plan>', 'one of the plans in plans.json')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.plan }))))
  workspace
    .command('members')
    .description('a workspace’s members and their roles')
    .argument('<id>', 'the workspace')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.members }))))
  admin
    .command('plans')
    .description('show the plans, or replace them with a JSON file ({"<plan>": {requestsPerMinute, aiMessagesPerMonth, storageBytes}, …})')
    .argument('[file]', 'the new plans table (default: show the plans in force)')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.plansCommand }))))
  admin
    .command('usage')
    .description('storage and AI messages of each workspace against its plan')
    .argument('[id]', 'one workspace (default: all)')
    .addOption(dataOption())
    .action(lazyAction(() => import('../actions/admin.js').then((m) => ({ default: m.usage }))))
}
