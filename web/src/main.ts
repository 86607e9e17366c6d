/** Starts the app: the stored login and settings, the outbox's sender, the screens. */
import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { loadSession } from './lib/auth.svelte';
import { i18n, loadLanguage } from './lib/i18n.svelte';
import { startOutbox } from './lib/outbox.svelte';
import { loadSettings } from './lib/settings.svelte';

document.documentElement.lang = i18n.lang;
await Promise.all([loadSession(), loadSettings(), loadLanguage()]);
mount(App, { target: document.getElementById('app')! });
// For measurements (npm run bench:app) and the browser's own performance tools.
requestAnimationFrame(() => performance.mark('fieldreport:first-screen'));
void startOutbox();
