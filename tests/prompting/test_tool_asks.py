"""What a tool and a call say the answer is about: the fields a call asks for."""

from __future__ import annotations

from mcp_sim.prompting.tool_asks import field_list_words


def test_the_fields_a_call_lists_give_their_paths_words() -> None:
    arguments = {
        "objectName": "Opportunity",
        "fields": ["Name", "Amount", "Account.Name", "(SELECT StageName FROM Opportunities)"],
        "_source": "title,list_price",
        "where": "Account.Industry = 'Retail'",
    }
    words = field_list_words(arguments)
    assert {"name", "amount", "account", "stage", "title", "list", "price"} <= words
    # The constraints are no fields asked for.
    assert "industry" not in words and "retail" not in words


def test_a_call_listing_no_fields_asks_none() -> None:
    assert field_list_words({"where": "status = 'open'", "limit": 20}) == set()
