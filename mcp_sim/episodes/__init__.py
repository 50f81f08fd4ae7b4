"""Episodes: isolated, addressable runs of the worlds a server hosts."""
