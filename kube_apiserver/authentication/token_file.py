"""--token-auth-file (tokenfile.TokenAuthenticator): CSV lines token,user,uid[,"group1,group2"]."""

from __future__ import annotations

import csv

from kube_apiserver.authentication.user import UserInfo


class TokenFileError(ValueError):
    pass


class TokenFileAuthenticator:
    def __init__(self, tokens: dict[str, UserInfo]) -> None:
        self.tokens = tokens

    @classmethod
    def from_file(cls, path: str) -> TokenFileAuthenticator:
        tokens: dict[str, UserInfo] = {}
        try:
            with open(path, newline="") as f:
                for lineno, record in enumerate(csv.reader(f), start=1):
                    if not record or (len(record) == 1 and not record[0].strip()):
                        continue
                    if record[0].startswith("#"):
                        continue
                    if len(record) < 3:
                        raise TokenFileError(
                            f"token file '{path}' must have at least 3 columns (token, user name, user uid), found {len(record)}"
                        )
                    token, name, uid = record[0], record[1], record[2]
                    if not token:
                        raise TokenFileError(f"token file '{path}' line {lineno}: empty token")
                    groups: tuple[str, ...] = ()
                    if len(record) >= 4 and record[3]:
                        groups = tuple(g.strip() for g in record[3].split(",") if g.strip())
                    tokens[token] = UserInfo(name, uid, groups)
        except OSError as e:
            raise TokenFileError(f"unable to read token file '{path}': {e.strerror}") from None
        return cls(tokens)

    async def authenticate_token(self, token: str) -> UserInfo | None:
        return self.tokens.get(token)
