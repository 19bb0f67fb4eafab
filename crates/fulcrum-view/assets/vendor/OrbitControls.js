// Placeholder for three.js's OrbitControls (npm package `three`, examples/jsm), added with the page.
export {};
