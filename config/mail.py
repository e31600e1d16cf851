"""The console mail backend development uses (EMAIL_URL=console://, or no mail settings).

Django's own prints each mail as it would go over the wire: a line longer than 76 characters,
as the set-password link of an invitation is, comes out quoted-printable, cut with "=" and
continued on the next line, so the link a person copies from the console does not work. This
one prints the same message with lines of up to 998 characters (the line limit of RFC 5322),
so every link stays one unbroken line.
"""

import email.policy

from django.core.mail.backends import console

# No soft line breaks below the RFC's own limit: plain text stays as written.
UNBROKEN = email.policy.default.clone(max_line_length=998)


class ConsoleBackend(console.EmailBackend):
    def write_message(self, message):
        text = message.message(policy=UNBROKEN).as_bytes().decode("utf-8", "replace")
        self.stream.write(f"{text}\n")
        self.stream.write("-" * 79)
        self.stream.write("\n")
