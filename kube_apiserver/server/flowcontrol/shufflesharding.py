"""Shuffle sharding (k8s.io/apiserver/pkg/util/shufflesharding): a flow's hash picks its hand of
queues, handSize distinct cards from a deck of deckSize, the same hand for the same hash as kube's
Dealer deals."""

from __future__ import annotations

import math

# Bits of the hash a deal may use: beyond 60 the last card would be noticeably uneven.
MAX_HASH_BITS = 60


class DealerError(ValueError):
    pass


def required_entropy_bits(deck_size: int, hand_size: int) -> int:
    return math.ceil(math.log2(deck_size) * hand_size)


# Hands remembered per dealer: a flow keeps its hash, and dealing costs more than a lookup.
HAND_CACHE_SIZE = 4096


class Dealer:
    __slots__ = ("deck_size", "hand_size", "_hands")

    def __init__(self, deck_size: int, hand_size: int) -> None:
        if deck_size <= 0 or hand_size <= 0:
            raise DealerError(f"deckSize {deck_size} or handSize {hand_size} is not positive")
        if hand_size > deck_size:
            raise DealerError(f"handSize {hand_size} is greater than deckSize {deck_size}")
        if deck_size > 1 << 26:
            raise DealerError(f"deckSize {deck_size} is impractically large")
        if required_entropy_bits(deck_size, hand_size) > MAX_HASH_BITS:
            raise DealerError(
                f"required entropy bits of deckSize {deck_size} and handSize {hand_size} is greater than {MAX_HASH_BITS}"
            )
        self.deck_size = deck_size
        self.hand_size = hand_size
        self._hands: dict[int, list[int]] = {}

    def hand(self, hash_value: int) -> list[int]:
        """deal(hash_value), remembered (do not change the list)."""
        hand = self._hands.get(hash_value)
        if hand is None:
            if len(self._hands) >= HAND_CACHE_SIZE:
                self._hands.clear()
            hand = self._hands[hash_value] = self.deal(hash_value)
        return hand

    def deal(self, hash_value: int) -> list[int]:
        """The hand for hash_value. The hash is read as a mixed-radix number: digit i (radix deckSize-i)
        picks among the cards not dealt yet, so the cards are distinct without any retry."""
        picks: list[int] = []
        for i in range(self.hand_size):
            hash_value, digit = divmod(hash_value, self.deck_size - i)
            picks.append(digit)
        hand: list[int] = []
        for i, card in enumerate(picks):
            # the digit counts the free cards: step over every earlier pick at or below it
            for j in range(i, 0, -1):
                if card >= picks[j - 1]:
                    card += 1
            hand.append(card)
        return hand
