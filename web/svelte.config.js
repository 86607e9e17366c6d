// Svelte 5 reads TypeScript in <script lang="ts"> itself; nothing to preprocess.
export default {};
