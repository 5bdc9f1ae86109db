/*
 * Modal dialogs on the native <dialog>: focus moves in and back, Esc closes, the rest of the
 * page cannot be clicked meanwhile. One at a time; each is built for its question and removed.
 */

import { h } from '../common/ui.js'

/**
 * Shows a dialog; resolves with the value its `done` callback was given (undefined when it was
 * closed with Esc or Cancel). `build(done)` returns the body; buttons call done(value).
 */
export function openDialog({ title, build, wide = false }) {
  const opener = document.activeElement
  return new Promise((resolve) => {
    let result
    const heading = h('h2', { id: 'dialog-title' }, title)
    const dialog = h('dialog', { class: `dialog${wide ? ' wide' : ''}`, 'aria-labelledby': 'dialog-title' })
    const done = (value) => {
      result = value
      dialog.close()
    }
    dialog.addEventListener('close', () => {
      dialog.remove()
      if (opener?.isConnected) opener.focus()
      resolve(result)
    })
    dialog.append(heading, build(done))
    document.body.append(dialog)
    dialog.showModal()
  })
}

const cancelButton = (done) => h('button', { type: 'button', class: 'btn', onclick: () => done(undefined) }, 'Cancel')

/**
 * A yes/no question for a step that cannot be undone. With `typeToConfirm`, the button stays
 * off until that text is typed (a folio's title before deleting it).
 */
export function confirmDialog({ title, message, confirmLabel, typeToConfirm }) {
  return openDialog({
    title,
    build(done) {
      const confirm = h('button', { type: 'submit', class: 'btn danger', disabled: Boolean(typeToConfirm) }, confirmLabel)
      const input = typeToConfirm
        ? h('input', {
            type: 'text',
            class: 'field',
            autocomplete: 'off',
            spellcheck: 'false',
            'aria-label': 'Type the title to confirm',
            oninput: (e) => {
              confirm.disabled = e.currentTarget.value.trim() !== typeToConfirm.trim()
            },
          })
        : null
      return h(
        'form',
        {
          method: 'dialog',
          class: 'dialog-body',
          onsubmit: (e) => {
            e.preventDefault()
            if (!confirm.disabled) done(true)
          },
        },
        h('p', {}, message),
        input && h('label', { class: 'confirm-label' }, h('span', {}, 'Type ', h('b', {}, typeToConfirm), ' to confirm:'), input),
        h('div', { class: 'dialog-actions' }, cancelButton(done), confirm),
      )
    },
  })
}

/**
 * A text field and a button: resolves with the trimmed text, or undefined when cancelled.
 * `warn(text)` may say what is risky about the text as it is typed (it does not stop it).
 */
export function askDialog({ title, message, label, value = '', confirmLabel, hint, warn }) {
  return openDialog({
    title,
    build(done) {
      const warning = h('p', { class: 'field-warning small', role: 'status', 'aria-live': 'polite' })
      const check = () => {
        warning.textContent = warn?.(input.value) ?? ''
      }
      const input = h('input', {
        type: 'text',
        class: 'field',
        value,
        autocomplete: 'off',
        spellcheck: 'false',
        required: true,
        maxlength: '256',
        oninput: check,
      })
      return h(
        'form',
        {
          class: 'dialog-body',
          onsubmit: (e) => {
            e.preventDefault()
            if (input.value.trim()) done(input.value.trim())
          },
        },
        message && h('p', {}, message),
        h('label', { class: 'confirm-label' }, label, input),
        warn && warning,
        hint && h('p', { class: 'muted small' }, hint),
        h('div', { class: 'dialog-actions' }, cancelButton(done), h('button', { type: 'submit', class: 'btn primary' }, confirmLabel)),
      )
    },
  })
}

/** Read-only text (the brief) with a copy button. */
export function textDialog({ title, text, onCopy }) {
  return openDialog({
    title,
    wide: true,
    build(done) {
      return h(
        'div',
        { class: 'dialog-body' },
        h('pre', { class: 'brief', tabindex: '0' }, text),
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { type: 'button', class: 'btn', onclick: () => onCopy(text) }, 'Copy'),
          h('button', { type: 'button', class: 'btn primary', onclick: () => done(undefined) }, 'Close'),
        ),
      )
    },
  })
}
