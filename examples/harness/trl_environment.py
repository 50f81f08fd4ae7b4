"""A TRL environment for the mcp-sim world 'paperlane-books' (the example bookstore), written by
`mcp-sim harness trl`.

    from trl import GRPOTrainer
    trainer = GRPOTrainer(..., train_dataset=rows, environment_factory=PaperlaneBooks)

Each instance is one rollout's episode. reset(**row) starts a new one on the row's
`task` (this world's: gift-order, no-antarctica; without a task column, one chosen by the row's
prompt), seeded by its `seed`; get_reward() is its verdict's reward, or None (which
TRL leaves out) when the world model failed a call. The tools are coroutines: TRL runs
the calls of one message at the same time. The world model is the OpenAI-compatible
server at $MCP_SIM_MODEL_URL (stub: for a stand-in that only tests the wiring).
"""

from __future__ import annotations

import os

from mcp_sim.api.environment import EpisodeEnvironment


class PaperlaneBooks(EpisodeEnvironment):
    """Paperlane online bookstore"""

    world_example = "bookstore"
    model_url = os.environ.get("MCP_SIM_MODEL_URL", "http://127.0.0.1:8000/v1")

    async def search_books(self, query: str, max_results: int | None = None) -> str:
        """Search the catalogue by keyword in title, author or genre. Returns matching books with price and stock.

        Args:
            query: Keywords to search for
            max_results: Maximum number of results (default 10)
        """
        return await self._call("search_books", {"query": query, "max_results": max_results})

    async def get_book(self, book_id: str) -> str:
        """Get the full record of one book by its id.

        Args:
            book_id: The book id, e.g. b1
        """
        return await self._call("get_book", {"book_id": book_id})

    async def place_order(self, book_id: str, quantity: int, email: str, country: str) -> str:
        """Place an order for one or more copies of a book, shipped to an address.

        Args:
            book_id: book id
            quantity: quantity
            email: Customer email
            country: Shipping country
        """
        return await self._call(
            "place_order",
            {
                "book_id": book_id,
                "quantity": quantity,
                "email": email,
                "country": country,
            },
        )

    async def cancel_order(self, order_id: str) -> str:
        """Cancel an order that has not shipped yet.

        Args:
            order_id: order id
        """
        return await self._call("cancel_order", {"order_id": order_id})
