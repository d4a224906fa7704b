import { test, expect } from '@playwright/test';
import { hydrated, signIn } from './session';
import * as path from 'node:path';

const screenshots = path.join(__dirname, '..', 'screenshots');

test('the playground answers, follows up, and runs a plan once approved', async ({ page }) => {
  await signIn(page);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click();
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
  await page.getByLabel('Project').selectOption({ label: 'Wholesale' });

  const turns = page.getByTestId('turn');
  await page.getByLabel('Question').fill('customers per market segment');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0).getByTestId('status')).toHaveText('answered');
  await expect(turns.nth(0).getByTestId('results').locator('tbody tr')).toHaveCount(5);
  await expect(turns.nth(0).getByTestId('sql')).toContainText('GROUP BY');

  // A follow-up refines the same chat.
  await page.getByLabel('Follow up').fill('only in Europe');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1).getByTestId('status')).toHaveText('answered');
  await expect(turns.nth(1).getByTestId('sql')).toContainText('EUROPE');

  // A genuine fork (several part types are brass) waits for approval, then runs.
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(turns).toHaveCount(0);
  await page.getByLabel('Question').fill('revenue for part brass');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns.nth(0).getByTestId('status')).toHaveText('needs approval');
  await expect(turns.nth(0).getByTestId('plan')).toBeVisible();
  await page.screenshot({ path: path.join(screenshots, 'playground-plan.png'), fullPage: true });
  await page.getByRole('button', { name: 'Approve and run' }).click();
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1).getByTestId('status')).toHaveText('answered');
  await expect(turns.nth(1).getByTestId('results').locator('tbody tr')).toHaveCount(1);
  await expect(turns.nth(1).getByTestId('sql')).toContainText('BRASS');
  await expect(page.getByRole('button', { name: 'Approve and run' })).toHaveCount(0);
  await page.screenshot({ path: path.join(screenshots, 'playground.png'), fullPage: true });

  // Both chats are in Activity, by their first question, and open to their turns.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
  await hydrated(page);
  await page.getByLabel('Project').selectOption({ label: 'Wholesale' });
  const chats = page.getByTestId('activity-chat');
  await expect(chats).toHaveCount(2);
  await expect(chats.nth(0)).toContainText('revenue for part brass');
  await expect(chats.nth(0)).toContainText('playground');
  await expect(chats.nth(0).getByTestId('activity-status')).toHaveText('answered');
  await expect(chats.nth(1)).toContainText('customers per market segment');
  await chats.nth(1).getByRole('button', { name: 'Open' }).click();
  const opened = chats.nth(1).getByTestId('activity-turns');
  await expect(opened.locator('li')).toHaveCount(2);
  await expect(opened).toContainText('only in Europe');
  await expect(opened).toContainText('EUROPE');
  await page.screenshot({ path: path.join(screenshots, 'activity.png'), fullPage: true });
  await page.getByLabel('Status').selectOption('not_answerable');
  await expect(page.getByText('Nothing asked yet that matches.')).toBeVisible();

  // Opened by its address, Activity is rendered on the server with its rows
  // and hydrated: no row makes a resource of its own there (that once broke
  // hydration elsewhere), so it hydrates every time and its rows still open.
  const panics: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && (m.text().includes('panicked') || m.text().includes('hydration error'))) {
      panics.push(m.text().slice(0, 300));
    }
  });
  for (let load = 1; load <= 3; load++) {
    await page.goto('/activity');
    await hydrated(page);
    const row = page.getByTestId('activity-chat').filter({ hasText: 'customers per market segment' });
    await row.getByRole('button', { name: 'Open' }).click();
    await expect(row.getByTestId('activity-turns').locator('li'), `load ${load}`).toHaveCount(2);
    await row.getByRole('button', { name: 'Hide' }).click();
    await expect(row.getByTestId('activity-turns')).toHaveCount(0);
    expect(panics, `load ${load}`).toEqual([]);
  }
});

test('the playground opened by its address answers at once, for the project it shows', async ({ page }) => {
  await signIn(page);
  // A full page load, as a bookmark or a typed address gives, then typing
  // the moment the page is interactive.
  await page.goto('/playground');
  await hydrated(page);
  await page.getByLabel('Question').fill('how many are there?');
  const ask = page.getByRole('button', { name: 'Ask' });
  await expect(ask).toBeEnabled({ timeout: 1_000 });
  await ask.click();
  const turns = page.getByTestId('turn');
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0).getByTestId('status')).toHaveText(/answered|not answerable|needs approval/);
  // The project the select shows is the one asked, and the address names it.
  const shown = await page.getByLabel('Project').inputValue();
  expect(shown).not.toBe('');
  await expect(page).toHaveURL(new RegExp(`/playground\\?project=${shown}&chat=chat_`));
});

test('a reload mid-chat keeps the chat, and the follow-up continues it', async ({ page }) => {
  await signIn(page);
  // The Wholesale project by its id in the address, as a bookmark keeps it.
  const href = await page.getByRole('link', { name: 'Wholesale', exact: true }).getAttribute('href');
  const id = href!.split('/').pop();
  await page.goto(`/playground?project=${id}`);
  await hydrated(page);
  await expect(page.getByLabel('Project')).toHaveValue(id!);
  await page.getByLabel('Question').fill('customers per market segment');
  await page.getByRole('button', { name: 'Ask' }).click();
  const turns = page.getByTestId('turn');
  await expect(turns.nth(0).getByTestId('status')).toHaveText('answered');
  await expect(page).toHaveURL(/&chat=chat_/);
  const chat = new URL(page.url()).searchParams.get('chat');

  await page.reload();
  await hydrated(page);
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0)).toContainText('customers per market segment');
  await expect(turns.nth(0).getByTestId('results').locator('tbody tr')).toHaveCount(5);
  await expect(page.getByLabel('Project')).toHaveValue(id!);
  // The follow-up refines the same chat, not a new one.
  await page.getByLabel('Follow up').fill('only in Europe');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1).getByTestId('status')).toHaveText('answered');
  await expect(turns.nth(1).getByTestId('sql')).toContainText('EUROPE');
  expect(new URL(page.url()).searchParams.get('chat')).toBe(chat);

  // Someone else's chat, or no chat, is refused without showing anything.
  await page.goto('/playground?chat=chat_01AAAAAAAAAAAAAAAAAAAAAAAA');
  await hydrated(page);
  await expect(page.getByTestId('resume-error')).toBeVisible();
  await expect(turns).toHaveCount(0);
});
