import { type CSSVariablesResolver, createTheme, darken } from "@mantine/core";

/**
 * Mantine's defaults, with the contrast WCAG AA asks for text (4.5:1), which axe checks in the browser tests: filled
 * controls one shade darker, dimmed text a shade darker, and light badges' text darkened against their tint.
 */
export const theme = createTheme({ primaryShade: 8 });

export const cssVariablesResolver: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    ...Object.fromEntries(
      Object.entries(resolved.colors).map(([name, shades]) => [
        `--mantine-color-${name}-light-color`,
        darken(shades[9], 0.4),
      ]),
    ),
  },
  dark: {},
});
