// ESLint for the dashboard's JavaScript: ES modules in the browser (anywidget), plotly.js from the page.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["pendulum_explorer/app/js/**/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["pendulum_explorer/app/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none" }],
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
      "no-implicit-globals": "error",
      "no-shadow": "error",
      "max-lines": ["error", { max: 600 }],
      "max-lines-per-function": ["error", { max: 100, skipComments: true, skipBlankLines: true }],
    },
  },
  {
    // the Voila template's head script (also the first lines of the widgets' module): a classic script
    files: ["pendulum_explorer/app/voila_data/**/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["pendulum_explorer/app/voila_data/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
    rules: { "no-var": "error", "prefer-const": "error", eqeqeq: ["error", "always"], "no-shadow": "error" },
  },
];
