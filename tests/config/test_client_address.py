"""The client's address behind proxies, read right to left past our own (pure)."""

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from config.client_address import TrustedProxies, client_address

ipv4 = st.ip_addresses(v=4).map(str)
junk = st.one_of(ipv4, st.text(alphabet="abc.:-_ 0123456789", max_size=12))


def by_count(n=1):
    return TrustedProxies.parse(n, "")


def test_directly_the_address_is_remote_addr_whatever_the_header():
    assert client_address("203.0.113.9", "1.2.3.4", None) == "203.0.113.9"


def test_a_proxy_that_sets_the_header_gives_the_client():
    assert client_address("10.0.0.2", "203.0.113.9", by_count(1)) == "203.0.113.9"


def test_a_proxy_that_appends_ignores_what_the_client_wrote():
    assert client_address("10.0.0.2", "6.6.6.6, 203.0.113.9", by_count(1)) == "203.0.113.9"


def test_two_proxies_by_count_and_by_address():
    header = "6.6.6.6, 203.0.113.9, 10.0.0.1"
    assert client_address("10.0.0.2", header, by_count(2)) == "203.0.113.9"
    cidr = TrustedProxies.parse(1, "10.0.0.0/24")
    assert client_address("10.0.0.2", header, cidr) == "203.0.113.9"


def test_no_header_behind_a_proxy_is_remote_addr_never_none():
    assert client_address("10.0.0.2", None, by_count(1)) == "10.0.0.2"
    assert client_address("10.0.0.2", "", by_count(1)) == "10.0.0.2"
    assert client_address("10.0.0.2", "not-an-address", by_count(1)) == "10.0.0.2"


def test_a_malformed_setting_is_refused():
    with pytest.raises(ValueError):
        TrustedProxies.parse(1, "10.0.0.0/99")
    with pytest.raises(ValueError):
        TrustedProxies.parse(0, "")


@given(
    spoofed=st.lists(junk, max_size=5),
    client=ipv4,
    inner=st.lists(st.integers(1, 254).map(lambda n: f"10.9.0.{n}"), max_size=3),
    remote=st.integers(1, 254).map(lambda n: f"10.9.1.{n}"),
)
def test_whatever_the_client_writes_the_count_finds_it(spoofed, client, inner, remote):
    """Appending proxies: the client may prepend anything; the hop our outermost proxy saw
    is what counts, by count and by network alike."""
    header = ", ".join([*spoofed, client, *inner])
    assert client_address(remote, header, by_count(len(inner) + 1)) == client
    ours = TrustedProxies.parse(1, "10.9.0.0/16")
    if ipaddress.ip_address(client) not in ipaddress.ip_network("10.9.0.0/16"):
        assert client_address(remote, header, ours) == client


@given(header=st.text(max_size=40), remote=ipv4, count=st.integers(1, 4))
def test_the_answer_is_always_an_address(header, remote, count):
    found = client_address(remote, header, by_count(count))
    assert found is not None and ipaddress.ip_address(found)
