/*
 * The owner's actions on one folio: publish, private with a key, comments on or off, the brief,
 * versions with restore, delete. Shown in each dashboard card (under "Manage") and open on the
 * folio's own page. Every step goes through app.run, which reports and refreshes.
 */

import { newAccessKey, weakAccessKeyWarning } from '../../domain/access-keys.ts'
import { ago, h } from '../common/ui.js'
import { deleteFolio, getBrief, updateFolio } from './dash-api.js'
import { askDialog, confirmDialog, textDialog } from './dash-dialog.js'
import { copyText, plural, toast } from './dash-dom.js'

/** Which <details> the owner opened (folio id + name), so a refresh that rebuilds a card keeps them open. */
const opened = new Set()

export function remembered(f, name, summary, ...content) {
  const id = `${f.id}:${name}`
  return h(
    'details',
    { class: name, open: opened.has(id), ontoggle: (e) => (e.currentTarget.open ? opened.add(id) : opened.delete(id)) },
    h('summary', { 'data-key': `${name}-summary` }, summary),
    ...content,
  )
}

const titleOf = (f) => f.title || 'Untitled'
const button = (label, onclick, extra = {}) => h('button', { type: 'button', class: 'btn', 'data-key': label, onclick, ...extra }, label)

async function copyKey(key, done) {
  try {
    await copyText(key)
    toast(`${done}The access key is copied.`)
  } catch {
    toast(`${done}Copy the access key yourself: ${key}`, { kind: 'error' })
  }
}

async function makePrivate(f, app) {
  const key = await askDialog({
    title: f.isPrivate ? `A new key for “${titleOf(f)}”` : `Make “${titleOf(f)}” private`,
    message: f.isPrivate
      ? 'Viewers will need the new key: the old one stops working at once, also for people viewing now.'
      : 'Viewers will need this key to open the share page. Keep the one made for you, or type your own.',
    label: 'Access key',
    value: newAccessKey(),
    confirmLabel: f.isPrivate ? 'Change key and copy it' : 'Make private and copy key',
    hint: 'Anyone who has the key can view it. The one made for you is long enough never to be guessed.',
    warn: (typed) => (typed.trim() ? weakAccessKeyWarning(typed) : undefined),
  })
  if (!key) return
  const changed = await app.run(() => updateFolio(f.id, { isPrivate: true, accessKey: key }))
  if (changed) await copyKey(key, f.isPrivate ? 'Key changed. ' : `“${titleOf(f)}” is private. `)
}

export async function showBrief(f, app) {
  const brief = await app.run(() => getBrief(f.id), { quiet: true })
  if (!brief) return
  await textDialog({
    title: `Brief for “${titleOf(f)}”`,
    text: brief.brief,
    onCopy: (text) =>
      copyText(text).then(
        () => toast('The brief is copied.'),
        () => toast('The browser refused to copy; select the text instead.', { kind: 'error' }),
      ),
  })
}

async function remove(f, app) {
  const versions = f.versionCount || f.versions?.length || 1
  const ok = await confirmDialog({
    title: `Delete “${titleOf(f)}”?`,
    message: `Its ${plural(versions, 'version')}, ${plural(f.comments?.length || 0, 'comment')}, reactions and views go for good, and its share link stops working. This cannot be undone.`,
    confirmLabel: 'Delete for good',
    typeToConfirm: titleOf(f),
  })
  if (!ok) return
  if (await app.run(() => deleteFolio(f.id), { success: `Deleted “${titleOf(f)}”.` })) app.deleted(f.id)
}

function versionList(f, app) {
  const versions = [...(f.versions || [])].reverse()
  return h(
    'ol',
    { class: 'version-list' },
    versions.map((v) => {
      const latest = v.versionId === f.latestVersionId
      return h(
        'li',
        { 'data-version': v.versionId },
        h(
          'div',
          { class: 'version-head' },
          h('b', {}, v.versionId),
          latest
            ? h('span', { class: 'badge' }, 'Latest')
            : h(
                'button',
                {
                  type: 'button',
                  class: 'btn small',
                  'data-key': `restore-${v.versionId}`,
                  'aria-label': `Restore ${v.versionId}`,
                  onclick: () =>
                    app.run(() => updateFolio(f.id, { restoreVersionId: v.versionId }), { success: (p) => `Restored ${v.versionId} as ${p.latestVersionId}.` }),
                },
                'Restore',
              ),
        ),
        h(
          'p',
          { class: 'version-meta' },
          v.commitMessage || 'No message',
          ' · ',
          v.author,
          ' · ',
          h('time', { datetime: v.createdAt, title: new Date(v.createdAt).toLocaleString() }, ago(v.createdAt, '—')),
        ),
      )
    }),
  )
}

/** The panel of settings and actions for one folio. */
export function controls(f, app) {
  const published = f.status === 'published'
  const settings = h(
    'div',
    { class: 'settings', role: 'group', 'aria-label': 'Settings' },
    button(published ? 'Unpublish' : 'Publish', () =>
      app.run(() => updateFolio(f.id, { status: published ? 'draft' : 'published' }), {
        success: published ? `“${titleOf(f)}” is a draft again: only you can see it.` : `“${titleOf(f)}” is published.`,
      }),
    ),
    f.isPrivate
      ? [
          button('Copy key', () => copyKey(f.accessKey || '', '')),
          button('Change key', () => makePrivate(f, app)),
          button('Make public', () => app.run(() => updateFolio(f.id, { isPrivate: false }), { success: `“${titleOf(f)}” is public: no key needed.` })),
        ]
      : button('Make private', () => makePrivate(f, app)),
    button(f.allowComments ? 'Turn comments off' : 'Turn comments on', () =>
      app.run(() => updateFolio(f.id, { allowComments: !f.allowComments }), {
        success: f.allowComments ? 'Comments are off: viewers can no longer add any.' : 'Comments are on.',
      }),
    ),
    button('Delete', () => remove(f, app), { class: 'btn danger-outline', 'aria-label': `Delete ${titleOf(f)}` }),
  )
  return h('div', { class: 'controls' }, settings, remembered(f, 'versions', `Versions (${f.versions?.length || f.versionCount || 0})`, versionList(f, app)))
}
