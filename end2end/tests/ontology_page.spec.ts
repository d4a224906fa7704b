import { test, expect } from '@playwright/test';
import { hydrated, signIn } from './session';
import { wholesaleProject } from './projects';

// The ontology page opened by its address (a bookmark, a reload) is rendered
// on the server, then hydrated. It once hydrated against the wrong data now
// and then (a resource made a varying number of times on the server), and the
// app stopped: after saving, the Publish tab no longer navigated. Each load
// is a new draw, so the page is opened several times.

test('the ontology page opened by its address hydrates every time, and its Publish tab then navigates', async ({ page }) => {
  test.setTimeout(120_000);
  const panics: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && (m.text().includes('panicked') || m.text().includes('hydration error'))) {
      panics.push(m.text().slice(0, 300));
    }
  });
  await signIn(page);
  const id = await wholesaleProject(page, `Wholesale reloads ${Date.now()}`);
  for (let load = 1; load <= 10; load++) {
    await page.goto(`/projects/${id}`);
    await hydrated(page);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect(page.getByText('Draft saved.')).toBeVisible();
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Publish' }).click();
    await expect(page, `load ${load}`).toHaveURL(new RegExp(`/projects/${id}/publish$`));
    await expect(page.getByRole('heading', { name: 'The draft against nothing published yet' })).toBeVisible();
    expect(panics, `load ${load}`).toEqual([]);
  }
});
