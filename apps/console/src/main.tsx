import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import { ApolloProvider } from "@apollo/client/react";
import { type CSSVariablesResolver, createTheme, MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { router } from "./routes";
import { client } from "./session/client";

// WCAG AA contrast (4.5:1) for text on the primary colour and for dimmed text, which Mantine's defaults miss.
const theme = createTheme({ primaryShade: 8 });
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: { "--mantine-color-dimmed": "var(--mantine-color-gray-7)" },
  dark: {},
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast}>
      <Notifications />
      <ApolloProvider client={client}>
        <RouterProvider router={router} />
      </ApolloProvider>
    </MantineProvider>
  </StrictMode>,
);
