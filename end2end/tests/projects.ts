import { expect, type Page } from '@playwright/test';
import { hydrated } from './session';
import * as path from 'node:path';

/** The repository's root, where `examples/` is. */
export const repo = path.join(__dirname, '..', '..');

/**
 * Creates a schema-only SQLite project with an empty draft through the new
 * project form, and waits on its ontology page until it is interactive.
 * Returns the project's id.
 */
export async function emptyProject(page: Page, name: string): Promise<string> {
  await page.goto('/projects/new');
  await hydrated(page);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Schema only (Cassis writes SQL, never runs it)').check();
  await page.getByLabel('SQL dialect').selectOption('sqlite');
  await page.getByLabel('First draft').selectOption('none');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('draft-status')).toContainText('nothing published yet');
  await hydrated(page);
  return page.url().split('/').pop() ?? '';
}

/** A project whose draft is the Wholesale demo's ontology, imported and saved. Returns its id. */
export async function wholesaleProject(page: Page, name: string): Promise<string> {
  const id = await emptyProject(page, name);
  await page.getByTestId('import-file').setInputFiles(path.join(repo, 'examples', 'wholesale', 'ontology.yaml'));
  await expect(page.getByTestId('yaml-editor')).toHaveValue(/average_revenue_per_order/);
  await expect(page.getByTestId('problems')).toHaveText('No problems.');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByText('Draft saved.')).toBeVisible();
  await expect(page.getByTestId('ontology-tree')).toContainText('revenue_growth');
  return id;
}
