/*
 * The comments panel's list: the threads on the page, under their file and slide (the file on
 * screen first, its slides in order); then the outdated ones (their element is gone from the
 * latest version: listed, not pinned); then, behind the toggle, earlier versions and resolved ones.
 */

import { h } from '../common/ui.js'

/**
 * The page's threads in groups, in the order they are listed and numbered: the file on screen
 * first, then the others by name; inside a file, the comments without a slide, then by slide.
 * The slide is where the bridge finds the element now (`pinSlides`, the file on screen), else
 * where the pin was made.
 */
export function pageGroups(threads, currentFile, pinSlides = {}) {
  const slideOf = (c) => {
    const now = c.filename === currentFile ? pinSlides[c.id] : undefined
    if (Number.isInteger(now)) return now
    return Number.isInteger(c.anchor?.slide) ? c.anchor.slide : undefined
  }
  const groups = new Map()
  for (const thread of threads) {
    const file = thread.comment.filename
    const slide = slideOf(thread.comment)
    const key = `${file}\u0000${slide ?? ''}`
    if (!groups.has(key)) groups.set(key, { file, slide, threads: [] })
    groups.get(key).threads.push(thread)
  }
  const rank = (g) => (g.file === currentFile ? 0 : 1)
  return [...groups.values()].sort((a, b) => rank(a) - rank(b) || a.file.localeCompare(b.file) || (a.slide ?? -1) - (b.slide ?? -1))
}

function groupTitle(group, currentFile) {
  const slide = group.slide === undefined ? '' : `Slide ${group.slide + 1}`
  if (group.file === currentFile) return slide || 'This page'
  return slide ? `${group.file} · ${slide}` : group.file
}

/** Draws the list into `list`. numbers: comment id → pin number (the file on screen only). */
export function renderList(view, list, { sets, groups, numbers, currentSlide }) {
  const { state } = view
  const restoreFocus = view.threads.keepFocus()
  const items = []
  // Headings only when they tell something: several files, or slides.
  const headed = groups.length > 1 || groups.some((g) => g.slide !== undefined)
  for (const group of groups) {
    const onScreen = group.file === state.currentFile
    if (headed) {
      const current = onScreen && group.slide !== undefined && group.slide === currentSlide
      items.push(h('li', { class: `group${current ? ' current' : ''}`, 'data-slide': group.slide ?? null }, h('h3', {}, groupTitle(group, state.currentFile))))
    }
    for (const thread of group.threads) {
      items.push(view.threads.render(thread, { num: numbers.get(thread.comment.id), kind: onScreen ? 'pin' : 'other-file' }))
    }
  }
  if (sets.outdated.length) {
    items.push(
      h(
        'li',
        { class: 'group outdated-group' },
        h('h3', {}, 'Outdated'),
        h('p', { class: 'group-note' }, 'What these point at is gone from the latest version.'),
      ),
    )
    for (const thread of sets.outdated) items.push(view.threads.render(thread, { kind: 'outdated' }))
  }
  if (state.showHistory) {
    items.push(h('li', { class: 'group history-group' }, h('h3', {}, 'Earlier versions and resolved')))
    if (!sets.history.length) items.push(h('li', { class: 'empty' }, 'Nothing here.'))
    for (const thread of sets.history) items.push(view.threads.render(thread, { kind: 'history' }))
  }
  if (!sets.page.length && !sets.outdated.length) {
    let text = 'No comments.'
    if (sets.openCount > 0) text = 'No comments on this version: the others are under “Show earlier versions”.'
    else if (sets.everCommented) text = 'All comments resolved.'
    else if (state.allowComments) text = 'No comments yet. Turn on “Comment” and click anywhere in the folio.'
    items.unshift(h('li', { class: 'empty' }, text))
  }
  list.replaceChildren(...items)
  restoreFocus()
}
