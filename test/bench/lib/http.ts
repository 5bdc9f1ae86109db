/** The few folio API calls the bench makes outside autocannon, each checked for its status. */

async function expectStatus(response: Response, status: number, what: string): Promise<string> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}: ${text.slice(0, 300)}`)
  return text
}

export async function createFolio(baseUrl: string, title: string, html: string, extra: { status?: 'published' } = {}): Promise<string> {
  const response = await fetch(`${baseUrl}/api/files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title, initialHtml: html, ...extra }),
  })
  const created = JSON.parse(await expectStatus(response, 201, 'POST /api/files')) as { success: boolean; project: { id: string } }
  return created.project.id
}

export async function putFiles(baseUrl: string, id: string, files: Record<string, string>, commitMessage: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/files/${id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ files, commitMessage }),
  })
  await expectStatus(response, 200, `PUT /api/files/${id}`)
}

export async function getText(url: string): Promise<string> {
  return expectStatus(await fetch(url), 200, `GET ${url}`)
}
