// Placeholder for the vendored three.js module (npm package `three`), added with the page.
export {};
