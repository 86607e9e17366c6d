/**
 * Starts the app (loaded by boot.ts, which has opened the database meanwhile): the stored login
 * and settings, the outbox's sender, the screens.
 */
import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { loadSession } from './lib/app/auth.svelte';
import { loadLanguage } from './lib/i18n/i18n.svelte';
import { startOutbox } from './lib/outbox/outbox.svelte';
import { loadSettings } from './lib/app/settings.svelte';

// boot.ts runs as soon as it arrives (async): in theory the page may not be parsed to its end yet.
const parsed =
  document.readyState === 'loading'
    ? new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }))
    : undefined;
await Promise.all([loadSession(), loadSettings(), loadLanguage(), parsed]);
mount(App, { target: document.getElementById('app')! });
// For measurements (npm run bench:app) and the browser's own performance tools.
requestAnimationFrame(() => performance.mark('fieldreport:first-screen'));
void startOutbox();
