import { useMutation } from "@apollo/client/react";
import { Alert, Button, Center, Paper, PasswordInput, PinInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { LoginUserDocument, SendMfaCodeDocument, VerifyMfaCodeDocument } from "../../graphql/graphql";
import { session } from "../../session/session";
import { useSession } from "../../session/useSession";

const ended = {
  expired: "Your session has expired. Log in again.",
  logged_out: "You have logged out.",
};

/** Login id and password, then the MFA code when the user has MFA (always for L0–L3). */
export function LoginPage() {
  const { identity } = useSession();
  const location = useLocation();
  const [loginId, setLoginId] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [challenge, setChallenge] = useState<{ user_id: string; channel: string } | null>(null);
  const [login, loginState] = useMutation(LoginUserDocument);
  const [sendCode] = useMutation(SendMfaCodeDocument);
  const [verify, verifyState] = useMutation(VerifyMfaCodeDocument);
  if (identity) return <Navigate to={(location.state as { from?: string } | null)?.from ?? "/"} replace />;
  const endedBecause = session.endedBecause();

  async function submitPassword(event: FormEvent) {
    event.preventDefault();
    const { data } = await login({ variables: { input: { login_id: loginId.trim(), password } } }).catch(() => ({
      data: undefined,
    }));
    const result = data?.loginUser;
    if (!result) return;
    if (result.access_token && result.expires_in) {
      session.start({ ...result, access_token: result.access_token, expires_in: result.expires_in });
      return;
    }
    const channel = result.mfa_channel ?? "totp";
    if (channel !== "totp") await sendCode({ variables: { user_id: result.user_id } }).catch(() => undefined);
    setChallenge({ user_id: result.user_id, channel });
  }

  async function submitCode(event: FormEvent) {
    event.preventDefault();
    if (!challenge) return;
    const { data } = await verify({ variables: { input: { user_id: challenge.user_id, code } } }).catch(() => ({
      data: undefined,
    }));
    if (data) session.start(data.verifyMfaCode);
    else setCode("");
  }

  return (
    <Center mih="100vh" component="main">
      <Paper withBorder shadow="sm" p="xl" w={380}>
        <Title order={1} size="h3" mb="md">
          POS cloud console
        </Title>
        {endedBecause && !challenge && (
          <Alert color="blue" mb="md" role="status">
            {ended[endedBecause]}
          </Alert>
        )}
        {challenge ? (
          <form onSubmit={submitCode}>
            <Stack>
              <Text size="sm" id="code-label">
                {challenge.channel === "totp"
                  ? "Enter the 6-digit code of your authenticator app."
                  : `Enter the 6-digit code sent by ${challenge.channel}.`}
              </Text>
              <PinInput
                length={6}
                type="number"
                oneTimeCode
                value={code}
                onChange={setCode}
                aria-label="Verification code"
                autoFocus
              />
              {verifyState.error && <ErrorAlert error={verifyState.error} />}
              <Button type="submit" loading={verifyState.loading} disabled={code.length !== 6}>
                Verify
              </Button>
              <Button variant="subtle" onClick={() => setChallenge(null)}>
                Back
              </Button>
            </Stack>
          </form>
        ) : (
          <form onSubmit={submitPassword}>
            <Stack>
              <TextInput
                label="Login id"
                value={loginId}
                onChange={(e) => setLoginId(e.currentTarget.value)}
                required
                autoComplete="username"
              />
              <PasswordInput
                label="Password"
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
                required
                autoComplete="current-password"
                visibilityToggleButtonProps={{ "aria-label": "Show password" }}
              />
              {loginState.error && <ErrorAlert error={loginState.error} />}
              <Button type="submit" loading={loginState.loading}>
                Log in
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
