"""The SQLModel store: tables and the functions that read and write them.

Every function takes the SQLAlchemy engine (or a session) as an argument; nothing
here builds a global connection or imports streamlit.
"""
